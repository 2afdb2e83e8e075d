// Runs a harness whose model asks for one `effect` call; the tool prints "STARTED"
// and never returns, so the parent can kill this process mid-tool (after the journal entry).
// Usage: tsx tool-crash-child.ts <jsonl root | postgres URL> <session id> <replay: safe | never> [schema]
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { type AgentTool, defineTool, type Session } from "../../src/index.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { scriptedModel } from "../../src/testing.js";
import { testModel } from "./loop-harness.js";

const [store, sessionId, replay, schema] = process.argv.slice(2);
const session: Session = store!.startsWith("postgres")
  ? await new PostgresSessionRepo({ connectionString: store!, schema: schema ?? "agentchart" }).create({
      id: sessionId!,
      cwd: "/w",
    })
  : await new JsonlSessionRepo({ root: store! }).create({ id: sessionId!, cwd: "/w" });
const effect = defineTool({
  name: "effect",
  description: "A side effect that never finishes here",
  parameters: z.object({ target: z.string() }),
  execute: async () => {
    process.stdout.write("STARTED\n");
    return new Promise<never>(() => {});
  },
});
const harness = new AgentHarness({
  session,
  model: testModel,
  streamFn: scriptedModel([{ toolCalls: [{ id: "call-1", name: "effect", arguments: { target: "t" } }] }]),
  tools: [(replay === "safe" ? { ...effect, replay: "safe" } : effect) as AgentTool],
});
await harness.prompt("do the effect");
