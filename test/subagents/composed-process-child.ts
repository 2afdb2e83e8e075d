// A process that runs the three-level support tree (./support.ts) and leaves it persisted for another
// process to restore.
// Usage: tsx composed-process-child.ts <runs-file> → prints the persisted agent (JSON) once the
//        grandchild's refund waits for approval, then exits; refund executions go to <runs-file>.
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { testModel } from "../support/loop-harness.js";
import { fileCountedRuns } from "./composed-process.js";
import { supportTree } from "./support.js";

const [file] = process.argv.slice(2);
const { tools, rootScript } = supportTree(fileCountedRuns(file!));
const agent = new Agent({ model: testModel, agentId: "root", streamFn: scriptedModel(rootScript), tools });
agent.subscribe((event) => {
  if (event.type !== "tool_approval_request") return;
  process.stdout.write(`${JSON.stringify(agent.persist())}\n`);
  process.exit(0);
});
void agent.prompt("help");
