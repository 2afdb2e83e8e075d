// A process that runs a harness on a JSONL session until its run waits at a budget limit (before its
// second model call), writes the persisted harness to <file> (atomically), prints "PAUSED" and hangs
// there until it is killed (kill -9: nothing of it runs after).
// Usage: tsx harness-budget-child.ts <sessions root> <file>
import { renameSync, writeFileSync } from "node:fs";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { echoTool, testModel } from "./loop-harness.js";

const [root, file] = process.argv.slice(2);
const session = await new JsonlSessionRepo({ root: root! }).create({ cwd: "/w", id: "budget-session" });
const harness = new AgentHarness({
  session,
  model: testModel,
  tools: [echoTool()],
  streamFn: scriptedModel([{ toolCalls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] }]),
  budget: { maxModelCalls: 1 },
});
harness.events$.subscribe((event) => {
  if (event.type !== "budget_exceeded") return;
  void session.flush().then(() => {
    writeFileSync(`${file}.tmp`, JSON.stringify(harness.persist()));
    renameSync(`${file}.tmp`, file!);
    process.stdout.write("PAUSED\n");
  });
});
void harness.prompt("echo hi");
