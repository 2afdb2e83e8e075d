// A process that records a run (record: true) and prints its recording (JSONL) for another process to
// restore from one of its steps. Usage: tsx replay-record-child.ts
import { Agent } from "../../src/agent/agent.js";
import { processModel, processScript, processTools } from "./agent-process.js";

const agent = new Agent({
  model: processModel,
  streamFn: processScript(),
  agentId: "agent-under-test",
  tools: processTools({ approval: true, onRun: () => {} }),
  record: true,
});
agent.subscribe((event) => {
  if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
});
await agent.prompt("Pay and look up");
process.stdout.write(agent.recording!.toJSONL());
