import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { AgUiTranslator, toAgUiEvents } from "../../src/ag-ui/to-ag-ui-events.js";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import type { AgentMessage } from "../../src/types/messages.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import { echoTool, testModel } from "../support/loop-harness.js";

/** A scripted model that streams its replies without any `toolcall_*` event (the calls come in `done`). */
function modelWithoutToolCallEvents(replies: ScriptedReply[]): StreamFn {
  const model = scriptedModel(replies);
  return async (...args) => {
    // The scripted model's stream is an async generator.
    const events = (await model(...args)) as AsyncIterable<AssistantMessageEvent>;
    return (async function* () {
      for await (const event of events) if (!event.type.startsWith("toolcall_")) yield event;
    })();
  };
}

/** The tool-call events of a stream, as `TYPE id` lines. */
const toolCallLines = (events: AgUiEvent[]) =>
  events.flatMap((event) => ("toolCallId" in event ? [`${event.type} ${event.toolCallId}`] : []));

const toolResult = (toolCallId: string): AgentMessage =>
  ({
    role: "toolResult",
    toolCallId,
    toolName: "echo",
    content: [{ type: "text", text: "ok" }],
    isError: false,
    timestamp: 0,
  }) as AgentMessage;

describe("AG-UI tool calls the client never saw start", () => {
  it("a model that streams no tool-call events: each result comes after its call's start and end", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: modelWithoutToolCallEvents([
        { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "one" } }] },
        { text: "Done." },
      ]),
      tools: [echoTool()],
    });
    const events: AgUiEvent[] = [];
    const subscription = agent.events$.pipe(toAgUiEvents()).subscribe((event) => events.push(event));
    await agent.prompt("go");
    subscription.unsubscribe();
    for (const event of events) expect(EventSchemas.safeParse(event).success, event.type).toBe(true);
    expect(toolCallLines(events)).toEqual(["TOOL_CALL_START c1", "TOOL_CALL_END c1", "TOOL_CALL_RESULT c1"]);
    expect(events.find((event) => event.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "echo" });
  });

  it("a resumed run: announces a result's unknown call once, never a call the client already has", () => {
    const translator = new AgUiTranslator({ firstMessageIndex: 2, knownToolCallIds: ["known"] });
    const events = [
      ...translator.translate({ type: "message_start", message: toolResult("known") }),
      ...translator.translate({ type: "message_end", message: toolResult("known") }),
      ...translator.translate({ type: "message_start", message: toolResult("restored") }),
      ...translator.translate({ type: "message_end", message: toolResult("restored") }),
      ...translator.translate({ type: "message_end", message: toolResult("restored") }),
    ];
    expect(toolCallLines(events)).toEqual([
      "TOOL_CALL_RESULT known",
      "TOOL_CALL_START restored",
      "TOOL_CALL_END restored",
      "TOOL_CALL_RESULT restored",
      "TOOL_CALL_RESULT restored",
    ]);
    expect(events.filter((event) => event.type === "TOOL_CALL_RESULT").map((e) => e.messageId)).toEqual([
      "m2",
      "m3",
      "m3",
    ]);
  });
});
