import type { ScriptedReply, ScriptedTurn } from "../src/testing.js";
import type { LlmContext } from "../src/types/stream.js";

/** The text of the tool results the model has received so far, by tool name. */
function toolOutputs(context: LlmContext): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const message of context.messages) {
    if (message.role !== "toolResult") continue;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
    outputs.set(message.toolName, text);
  }
  return outputs;
}

/**
 * The offline demo's "model": it lists the project, reads package.json, then answers from what the
 * tools actually returned (so the answer changes when the project does).
 */
export const demoScript: ScriptedTurn[] = [
  {
    thinking: "The user wants to know what this project is. I should look at its files first.",
    text: "Let me look around the project first.",
    toolCalls: [
      { name: "ls", arguments: { path: "." } },
      { name: "read", arguments: { path: "package.json" } },
    ],
    usage: { input: 180, output: 42 },
  },
  (context): ScriptedReply => {
    const outputs = toolOutputs(context);
    const listing = (outputs.get("ls") ?? "").split("\n").filter((line) => line.trim() !== "");
    const folders = listing.filter((line) => line.endsWith("/"));
    let summary = "I could not read package.json.";
    try {
      const pkg = JSON.parse(outputs.get("read") ?? "") as {
        name?: string;
        version?: string;
        description?: string;
        dependencies?: Record<string, string>;
      };
      const deps = Object.keys(pkg.dependencies ?? {});
      summary =
        `This is **${pkg.name}@${pkg.version}**: ${pkg.description}.\n` +
        `It depends on ${deps.length} packages at run time (${deps.join(", ")}).`;
    } catch {
      // keep the fallback summary
    }
    return {
      text:
        `${summary}\n` +
        `The top level holds ${listing.length} entries, ${folders.length} of them folders ` +
        `(${folders.join(" ")}).`,
      usage: { input: 900, output: 85 },
    };
  },
];
