// Runs a recorded harness over a JSONL session, prompt after prompt, until killed; after each run it
// prints the index of the run's last step once the session holds it.
// Usage: node --import tsx recording-crash-child.ts <root> <sessionId>
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { JsonlSessionRepo } from "../../src/node.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { weatherTool } from "../replay/support.js";
import { testModel } from "./loop-harness.js";

const [root, sessionId] = process.argv.slice(2);
const session = await new JsonlSessionRepo({ root: root! }).open(sessionId!);
const turns: ScriptedTurn[] = [];
for (let run = 0; run < 10_000; run++)
  turns.push(
    { toolCalls: [{ name: "weather", arguments: { city: `City ${run}` } }] },
    { text: `City ${run}: 21°C, ${"sunny ".repeat(run % 7)}` },
  );
const harness = new AgentHarness({
  session,
  model: testModel,
  streamFn: scriptedModel(turns),
  tools: [weatherTool().tool],
  record: true,
});
for (let run = 0; ; run++) {
  await harness.prompt(`Weather ${run}?`);
  await session.flush();
  process.stdout.write(`${harness.recording!.steps.at(-1)!.index}\n`);
}
