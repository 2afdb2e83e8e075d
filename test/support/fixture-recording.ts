// The run of test/fixtures/recordings/weather-approval.recording.jsonl: its options (shared by the
// script that made it and the test that replays it). Regenerate (only with a new format version, into
// a new file): npx tsx test/support/fixture-recording.ts > test/fixtures/recordings/<name>.recording.jsonl
import { fileURLToPath } from "node:url";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { deleteTool, weatherTool } from "../replay/support.js";
import { testModel } from "./loop-harness.js";

/** The agent of the fixture run, without its StreamFn (the recording answers). */
export function fixtureAgentOptions(): Omit<AgentOptions, "streamFn"> {
  return {
    model: testModel,
    systemPrompt: "You forecast and tidy up.",
    tools: [weatherTool().tool, deleteTool],
  };
}

/** Records the fixture run: a tool call, an approval, a steer, a final answer. */
export async function recordFixtureRun(): Promise<string> {
  const agent = new Agent({
    ...fixtureAgentOptions(),
    streamFn: scriptedModel([
      {
        thinking: "Weather first, then the file.",
        toolCalls: [
          { id: "call_w1", name: "weather", arguments: { city: "Paris" } },
          { id: "call_d1", name: "delete_file", arguments: { path: "old.txt" } },
        ],
        usage: { input: 40, output: 12 },
      },
      { text: "Paris: 21°C. old.txt is deleted.", usage: { input: 90, output: 9 } },
    ]),
    record: true,
  });
  agent.subscribe((event) => {
    if (event.type === "tool_approval_request") {
      agent.steer("Say the temperature first.");
      agent.approveToolCall(event.toolCallId);
    }
  });
  await agent.prompt("Weather in Paris, and delete old.txt");
  return agent.recording!.toJSONL();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await recordFixtureRun());
