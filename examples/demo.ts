/**
 * `npm run demo`: an agent that explores this project with two real tools (ls, read), printing the
 * streamed reply, the tool calls and every state transition of the loop statechart.
 * Offline on the scripted model by default; with OPENAI_API_KEY set it uses the OpenAI provider, with
 * ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY Claude or Gemini through `agentchart/ai-sdk`
 * (AGENTCHART_PROVIDER chooses when several keys are set).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { InspectionEvent } from "xstate";
import { Agent } from "../src/index.js";
import { lsTool, readTool } from "../src/node-tools.js";
import { type ScriptedTurn, scriptedModel } from "../src/testing.js";
import type { Model } from "../src/types/model.js";
import type { StreamFn } from "../src/types/stream.js";
import { demoScript } from "./demo-script.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const color = (code: number) => (text: string) =>
  process.stdout.isTTY ? `\x1b[${code}m${text}\x1b[0m` : text;
const dim = color(2);
const cyan = color(36);
const yellow = color(33);

/** The provider whose key is set: `AGENTCHART_PROVIDER`, else the first of OpenAI, Anthropic, Google. */
function chosenProvider(): string | undefined {
  const env = process.env;
  if (env.AGENTCHART_PROVIDER) return env.AGENTCHART_PROVIDER;
  if (env.OPENAI_API_KEY) return "openai";
  if (env.ANTHROPIC_API_KEY) return "anthropic";
  if (env.GOOGLE_GENERATIVE_AI_API_KEY) return "google";
  return undefined;
}

async function chooseModel(): Promise<{ model: Model; streamFn: StreamFn; banner: string }> {
  const provider = chosenProvider();
  if (provider !== undefined && provider !== "openai") {
    const { aiSdkModel } = await import("../src/ai-sdk.js");
    const { model, streamFn } = await aiSdkModel({ provider, modelId: process.env.AGENTCHART_MODEL });
    return { model, streamFn, banner: `model ${model.id} via ${provider} (AI SDK)` };
  }
  if (provider === "openai") {
    const { openai } = await import("../src/openai.js");
    const id = process.env.AGENTCHART_MODEL ?? "gpt-4o-mini";
    const baseUrl = process.env.OPENAI_BASE_URL;
    return {
      model: {
        id,
        api: "openai-chat",
        provider: "openai",
        baseUrl,
        contextWindow: 128_000,
        maxTokens: 4_096,
      },
      streamFn: openai({ baseURL: baseUrl }),
      banner: `model ${id} via ${baseUrl ?? "api.openai.com"}`,
    };
  }
  return {
    model: {
      id: "scripted-demo",
      api: "scripted",
      provider: "agentchart",
      contextWindow: 32_000,
      maxTokens: 2_048,
    },
    // On a terminal the script streams at a readable pace (15 ms per event).
    streamFn: scriptedModel(process.stdout.isTTY ? demoScript.map(paced) : demoScript),
    banner:
      "offline scripted model (set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY to use a real one)",
  };
}

/** The same scripted turn, sending its events `PACE_MS` apart. */
const PACE_MS = 15;
function paced(turn: ScriptedTurn): ScriptedTurn {
  if (typeof turn !== "function") return { ...turn, delayMs: PACE_MS };
  return (context, options) => ({ ...turn(context, options), delayMs: PACE_MS });
}

/**
 * Prints each actor's state whenever it changes: the loop and its tool-call children. Microsteps, not
 * snapshots, so states passed through within one macrostep (a synchronous decision) show up too.
 */
function printTransitions() {
  const lastValue = new Map<string, string>();
  return (event: InspectionEvent) => {
    if (event.type !== "@xstate.microstep" && event.type !== "@xstate.snapshot") return;
    const snapshot = event.snapshot as { value?: unknown; status?: string };
    if (snapshot.value === undefined) return; // promise actors have no state value
    const value = statePath(snapshot.value);
    const actor = event.actorRef as unknown as { id: string; sessionId: string };
    if (lastValue.get(actor.id) === value) return;
    lastValue.set(actor.id, value);
    const who = actor.sessionId === event.rootId ? "agent" : `tool ${actor.id}`;
    process.stdout.write(dim(`\n  [${who}] → ${value}`));
  };
}

/** A state value as a dotted path: `{ preparingTurn: "deciding" }` → `preparingTurn.deciding`. */
function statePath(value: unknown): string {
  if (typeof value === "string") return value;
  return Object.entries(value as Record<string, unknown>)
    .map(([state, child]) => `${state}.${statePath(child)}`)
    .join(",");
}

const { model, streamFn, banner } = await chooseModel();
console.log(cyan(`agentchart demo — ${banner}`));
const agent = new Agent({
  model,
  streamFn,
  systemPrompt: "You explore a software project with the ls and read tools and describe it briefly.",
  tools: [lsTool, readTool],
  toolContext: { cwd: projectRoot },
  inspect: printTransitions(),
});

agent.subscribe((event) => {
  switch (event.type) {
    case "message_update": {
      const update = event.assistantMessageEvent;
      if (update.type === "text_start" || update.type === "thinking_start") process.stdout.write("\n");
      if (update.type === "text_delta") process.stdout.write(update.delta);
      if (update.type === "thinking_delta") process.stdout.write(dim(update.delta));
      if (update.type === "toolcall_start") process.stdout.write("\n");
      if (update.type === "toolcall_delta" && process.stdout.isTTY) {
        // The arguments parsed so far, redrawn on one line as they grow.
        const call = update.partial.content[update.contentIndex];
        if (call?.type === "toolCall") {
          process.stdout.write(`\r\x1b[2K  ${dim(`… ${call.name}(${JSON.stringify(call.arguments)})`)}`);
        }
      }
      break;
    }
    case "tool_execution_start":
      process.stdout.write(yellow(`\n  ⚙ ${event.toolName}(${JSON.stringify(event.args)})`));
      break;
    case "tool_execution_end": {
      const first = event.result.content[0];
      const preview = first?.type === "text" ? first.text.split("\n").length : 0;
      process.stdout.write(
        yellow(`\n  ✓ ${event.toolName}: ${event.isError ? "error" : `${preview} lines`}`),
      );
      break;
    }
    case "agent_end":
      process.stdout.write("\n");
      break;
  }
});

const question = process.argv.slice(2).join(" ") || "What is this project?";
console.log(`\n> ${question}`);
await agent.prompt(question);
const last = agent.state.messages.at(-1) as { usage?: { totalTokens: number }; stopReason?: string };
console.log(dim(`\n${agent.state.messages.length} messages, stop reason ${last.stopReason}`));
if (agent.state.errorMessage) {
  console.error(`error: ${agent.state.errorMessage}`);
  process.exitCode = 1;
}
