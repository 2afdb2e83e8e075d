import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { Recording } from "../../src/replay/recording.js";
import { RecordingError } from "../../src/replay/recording-format.js";
import { replayModel } from "../../src/replay/replay-model.js";
import { replayTools } from "../../src/replay/replay-tools.js";
import { testModel } from "../support/loop-harness.js";
import { signaturesOf, weatherTool, withoutTimestamps } from "./support.js";

describe("recording an Agent run", () => {
  it("records each request, reply, tool call, command and step, and replays them offline with the same events", async () => {
    const { tool, executions } = weatherTool();
    const streamFn = scriptedModel([
      {
        thinking: "Look it up.",
        toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Paris" } }],
      },
      { text: "It is 21°C in Paris." },
    ]);
    const agent = new Agent({
      model: testModel,
      systemPrompt: "You forecast.",
      streamFn,
      tools: [tool],
      record: true,
    });
    const live = signaturesOf(agent);
    await agent.prompt("Weather in Paris?");
    const recording = agent.recording!;
    expect(recording.modelCalls.map((call) => call.request.messages.length)).toEqual([1, 3]);
    expect(recording.toolCalls).toMatchObject([
      { toolCallId: "call_w1", toolName: "weather", args: { city: "Paris" } },
    ]);
    expect(recording.commands.map((entry) => [entry.command.type, entry.state])).toEqual([
      ["PROMPT", "idle"],
    ]);
    expect(agent.history.map((step) => step.step)).toEqual([
      "turn_start",
      "tools_settled",
      "turn_start",
      "run_end",
    ]);
    expect(agent.history.map((step) => step.index)).toEqual([0, 1, 2, 3]);

    const loaded = Recording.fromJSONL(recording.toJSONL());
    const replayed = new Agent({
      model: testModel,
      systemPrompt: "You forecast.",
      streamFn: replayModel(loaded),
      tools: replayTools(loaded, [tool]),
    });
    const again = signaturesOf(replayed);
    const prompt = loaded.commands[0]!.command;
    if (prompt.type !== "PROMPT") throw new Error("expected the prompt");
    await replayed.prompt(prompt.messages);
    expect(again).toEqual(live);
    expect(withoutTimestamps(replayed.state.messages)).toEqual(withoutTimestamps(agent.state.messages));
    expect(executions).toEqual(["Paris"]); // the live run's only: the replay answered from the recording
  });

  it("never writes the API key, headers or Authorization into the recording", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "ok" }]),
      apiKey: "sk-secret-123",
      headers: { Authorization: "Bearer sk-secret-456" },
      temperature: 0.2,
      record: true,
    });
    await agent.prompt("hi");
    const text = agent.recording!.toJSONL();
    expect(text).not.toContain("sk-secret");
    expect(text).not.toContain("Authorization");
    expect(agent.recording!.modelCalls[0]!.request.options).toEqual({ temperature: 0.2 });
  });

  it("writes a versioned JSONL file whose first line is the header", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "ok" }]), record: true });
    await agent.prompt("hi");
    const lines = agent.recording!.toJSONL().trimEnd().split("\n");
    expect(JSON.parse(lines[0]!)).toEqual({
      kind: "header",
      format: "agentchart.recording",
      version: 1,
      source: "agent",
    });
    expect(lines.slice(1).map((line) => JSON.parse(line).kind)).toEqual([
      "command",
      "model_call",
      "step",
      "step",
    ]);
  });

  it("has an empty history without record", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "ok" }]) });
    await agent.prompt("hi");
    expect(agent.recording).toBeUndefined();
    expect(agent.history).toEqual([]);
  });
});

describe("reading a recording", () => {
  const valid = () => {
    const recording = new Recording();
    recording.add({ kind: "command", agentPath: [], state: "idle", command: { type: "ABORT" } });
    return recording.toJSONL();
  };

  it("names the line of a truncated recording, and loads nothing", () => {
    const text = valid();
    const truncated = text.slice(0, text.length - 10);
    expect(() => Recording.fromJSONL(truncated)).toThrow(RecordingError);
    expect(() => Recording.fromJSONL(truncated)).toThrow(/^line 2: not JSON/);
  });

  it("refuses a recording of another version, naming both versions", () => {
    const text = valid().replace('"version":1', '"version":2');
    expect(() => Recording.fromJSONL(text)).toThrow(
      expect.objectContaining({
        code: "version",
        line: 1,
        message: expect.stringMatching(/version 2; this agentchart reads version 1/),
      }),
    );
  });

  it("refuses text without a header, an empty text, and a hand-edited entry", () => {
    expect(() => Recording.fromJSONL("")).toThrow(expect.objectContaining({ code: "empty" }));
    expect(() => Recording.fromJSONL('{"kind":"command"}\n')).toThrow(
      expect.objectContaining({ code: "format", line: 1 }),
    );
    const edited = valid().replace('"agentPath":[]', '"agentPath":"root"');
    expect(() => Recording.fromJSONL(edited)).toThrow(
      /^line 2: the command entry's "agentPath" must be an array/,
    );
    const unknown = `${valid()}{"kind":"teleport"}\n`;
    expect(() => Recording.fromJSONL(unknown)).toThrow(expect.objectContaining({ code: "invalid", line: 3 }));
  });
});
