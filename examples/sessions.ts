/**
 * Sessions: an agent's transcript persisted as pi-compatible JSONL, reopened, branched with
 * `moveTo` (the tree keeps both branches) and forked into a new session.
 *
 *   npx tsx examples/sessions.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentMessage, emptyUsage } from "../src/index.js";
import { JsonlSessionRepo } from "../src/node.js";
import type { SessionTreeNode } from "../src/sessions.js";
import { scriptedModel } from "../src/testing.js";

const root = mkdtempSync(join(tmpdir(), "agentchart-sessions-example-"));
const repo = new JsonlSessionRepo({ root });
const model = { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 };
const text = (message: AgentMessage) => {
  const m = message as { role: string; content: string | { type: string; text?: string }[] };
  return `${m.role}: ${typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("")}`;
};

try {
  // 1. Run an agent and persist every message as it ends.
  const session = await repo.create({ cwd: "/projects/demo" });
  const agent = new Agent({
    model,
    streamFn: scriptedModel([{ text: "Paris." }, { text: "About 2.1 million." }]),
  });
  agent.subscribe((event) => {
    if (event.type === "message_end") void session.appendMessage(event.message);
  });
  await agent.prompt("What is the capital of France?");
  await agent.prompt("How many people live there?");
  await session.close();
  console.log(
    `created ${session.id}: ${readFileSync(session.path as string, "utf8").split("\n").length - 1} lines`,
  );

  // 2. Reopen it: the context is rebuilt from the file.
  const reopened = await repo.open(session.id);
  console.log("reopened context:");
  for (const message of reopened.buildContext().messages) console.log(`  ${text(message)}`);

  // 3. Branch: go back to the first answer and ask something else. Both branches stay in the tree.
  const firstAnswer = reopened.getBranch()[1];
  await reopened.moveTo(firstAnswer?.id ?? null);
  await reopened.appendMessage({ role: "user", content: "And of Italy?", timestamp: Date.now() });
  await reopened.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Rome." }],
    api: "scripted",
    provider: "local",
    model: "demo",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  });
  const draw = (nodes: SessionTreeNode[], depth: number): void => {
    for (const node of nodes) {
      const entry = node.entry;
      console.log(`  ${"  ".repeat(depth)}${entry.type === "message" ? text(entry.message) : entry.type}`);
      draw(node.children, depth + 1);
    }
  };
  console.log("tree after branching:");
  draw(reopened.getTree(), 0);
  console.log(`current branch: ${reopened.buildContext().messages.map(text).join(" | ")}`);

  // 4. Fork the old branch (at the population answer) into a session of its own.
  const populationAnswer = reopened
    .getEntries()
    .find((entry) => entry.type === "message" && text(entry.message).includes("million"));
  await reopened.close();
  const fork = await repo.fork(session.id, { entryId: populationAnswer?.id });
  console.log(
    `fork ${fork.id === session.id ? "(same id?!)" : "has a new id"}, context: ${fork.buildContext().messages.map(text).join(" | ")}`,
  );
  await fork.close();
  console.log(`sessions stored: ${(await repo.list()).length}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
