// A process that runs a harness on a JSONL session until its run waits at a budget limit (before its
// second model call), writes the persisted harness to <file> (atomically), prints "PAUSED" and hangs
// there until it is killed (kill -9: nothing of it runs after). With "tree": the root's first reply
// delegates to `helper` (call h1), whose child echoes once; the root's maxModelCalls (2) holds the
// child's second model call, reserved with the root's ledger.
// Usage: tsx harness-budget-child.ts <sessions root> <file> [tree]
import { renameSync, writeFileSync } from "node:fs";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { budgetHelper } from "./budget-helper.js";
import { echoTool, testModel } from "./loop-harness.js";

const [root, file, shape] = process.argv.slice(2);
const session = await new JsonlSessionRepo({ root: root! }).create({ cwd: "/w", id: "budget-session" });
const harness = new AgentHarness(
  shape === "tree"
    ? {
        session,
        model: testModel,
        tools: [budgetHelper(false)],
        streamFn: scriptedModel([{ toolCalls: [{ id: "h1", name: "helper", arguments: { task: "echo" } }] }]),
        budget: { maxModelCalls: 2 },
      }
    : {
        session,
        model: testModel,
        tools: [echoTool()],
        streamFn: scriptedModel([{ toolCalls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] }]),
        budget: { maxModelCalls: 1 },
      },
);
harness.events$.subscribe((event) => {
  if (event.type !== "budget_exceeded" || event.agentPath) return;
  void session.flush().then(() => {
    writeFileSync(`${file}.tmp`, JSON.stringify(harness.persist()));
    renameSync(`${file}.tmp`, file!);
    process.stdout.write("PAUSED\n");
  });
});
void harness.prompt("echo hi");
