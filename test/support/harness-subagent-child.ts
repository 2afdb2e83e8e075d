// A process that runs a harness on a JSONL session until the grandchild's `refund` call (root → support
// → billing → refund) waits for approval, then prints the persisted harness (one JSON line) and exits.
// Usage: tsx harness-subagent-child.ts <sessions root> <effects file>
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { harnessSupportTree } from "./harness-subagent-tree.js";
import { refundModel } from "./refund-tool.js";

const [root, effects] = process.argv.slice(2);
const repo = new JsonlSessionRepo({ root: root! });
const session = await repo.create({ cwd: "/shop", id: "root-session" });
const tree = harnessSupportTree(effects!);
const harness = new AgentHarness({
  session,
  sessionRepo: repo,
  model: refundModel,
  tools: tree.tools,
  streamFn: tree.harnessModel,
});
harness.events$.subscribe((event) => {
  if (event.type !== "tool_approval_request") return;
  const saved = JSON.stringify(harness.persist());
  void Promise.all([harness.close(), session.flush()]).then(() => {
    process.stdout.write(`${saved}\n`);
    process.exit(0);
  });
});
void harness.prompt("help");
