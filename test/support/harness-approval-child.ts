// A process that runs a harness on a JSONL session until a `refund` call waits for approval, then
// prints the persisted harness (one JSON line) and exits, as a server would at a restart.
// Usage: tsx harness-approval-child.ts <sessions root> <effects file>
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { refundModel, refundTool } from "./refund-tool.js";

const [root, effects] = process.argv.slice(2);
const session = await new JsonlSessionRepo({ root: root! }).create({ cwd: "/shop", id: "refund-session" });
const harness = new AgentHarness({
  session,
  model: refundModel,
  tools: [refundTool(effects!)],
  streamFn: scriptedModel([
    { toolCalls: [{ id: "call-refund", name: "refund", arguments: { order: "A-17" } }] },
  ]),
});
harness.events$.subscribe((event) => {
  if (event.type !== "tool_approval_request") return;
  void session.flush().then(() => {
    process.stdout.write(`${JSON.stringify(harness.persist())}\n`);
    process.exit(0);
  });
});
void harness.prompt("Refund order A-17");
