// A process that runs an agent and leaves it persisted for another process to restore.
// Usage: tsx agent-process-child.ts approval          → prints the persisted agent (JSON) once a tool call
//                                                         waits for approval, then exits
//        tsx agent-process-child.ts crash <file>      → writes the persisted agent to <file> after every
//                                                         macrostep; prints "SAVED-EXECUTING" once a saved
//                                                         snapshot has both tool calls executing, and hangs
//                                                         there until killed
import { renameSync, writeFileSync } from "node:fs";
import { Agent } from "../../src/agent/agent.js";
import { processModel, processScript, processTools } from "./agent-process.js";

const [mode, file] = process.argv.slice(2);
const approval = mode === "approval";
const agent = new Agent({
  model: processModel,
  streamFn: processScript(),
  agentId: "agent-under-test",
  tools: processTools({
    approval,
    onRun: (tool, key) => process.stdout.write(`RUNNING ${tool} ${key}\n`),
    gate: () => new Promise<void>(() => {}),
  }),
});
if (approval) {
  agent.subscribe((event) => {
    if (event.type !== "tool_approval_request") return;
    process.stdout.write(`${JSON.stringify(agent.persist())}\n`);
    process.exit(0);
  });
} else {
  // Written atomically after every macrostep, as a durable app would.
  let announced = false;
  agent.actor.subscribe(() => {
    const persisted = agent.persist();
    writeFileSync(`${file}.tmp`, JSON.stringify(persisted));
    renameSync(`${file}.tmp`, file!);
    const executing = Object.values(persisted.snapshot.children).filter(
      (c) => c.snapshot.value === "executing",
    );
    if (executing.length === 2 && !announced) {
      announced = true;
      process.stdout.write("SAVED-EXECUTING\n");
    }
  });
}
void agent.prompt("Pay and look up.");
