/**
 * The stream actor on its own (`src/actors/stream-reply.actor.ts`): `streamReply` with a sink that
 * records every event, and `streamReplyActor` invoked by a parent that records what it sends back, with
 * the scripted model or a hand-written StreamFn (an Observable of events, for providers that break the
 * contract), and the agent's implementations made by `agentImplementations`.
 */
import { Observable, of } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  finalAnswerSpec,
  type ReplyOutput,
  type StreamRequest,
  streamOptionsOf,
  streamReply,
  streamReplyActor,
} from "../../src/actors/stream-reply.actor.js";
import { outputStateOf } from "../../src/loop/output-schema.js";
import {
  type AgentMachineOptions,
  agentImplementations,
} from "../../src/machines/agent/agent.implementations.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineHandoff } from "../../src/tools/define-handoff.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import type { AgentCallbacks } from "../../src/types/loop.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/messages.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import type { AgentTool } from "../../src/types/tool.js";
import { invokeActor } from "../support/actor-harness-b.js";
import { assistant } from "../support/loop-context.js";
import { deferred, echoTool, testModel, user } from "../support/loop-harness.js";

const reply = (text: string): AssistantMessage => assistant([{ type: "text", text }], "stop");
const partialOf = (text: string) => reply(text);

/** A StreamFn that sends `events` at once (an Observable that completes after them). */
const sending =
  (...events: AssistantMessageEvent[]): StreamFn =>
  () =>
    of(...events);

/**
 * A StreamFn that sends `events` and then never ends, ignoring its signal; `signal` is the one it got,
 * `unsubscribed()` whether its reader let go of the stream.
 */
function sendingThenHanging(...events: AssistantMessageEvent[]) {
  const called = deferred<AbortSignal>();
  let unsubscribed = false;
  const streamFn: StreamFn = (_, __, options) => {
    called.resolve(options.signal!);
    return new Observable<AssistantMessageEvent>((subscriber) => {
      for (const event of events) subscriber.next(event);
      return () => {
        unsubscribed = true;
      };
    });
  };
  return { streamFn, signal: called.promise, unsubscribed: () => unsubscribed };
}

const start = (text = ""): AssistantMessageEvent => ({ type: "start", partial: partialOf(text) });
const textDelta = (delta: string, whole: string): Extract<AssistantMessageEvent, { type: "text_delta" }> => ({
  type: "text_delta",
  contentIndex: 0,
  delta,
  partial: partialOf(whole),
});
const done = (text: string): AssistantMessageEvent => ({
  type: "done",
  reason: "stop",
  message: reply(text),
});

/** What `streamReply` resolves with for `callbacks` and `patch`, and every event it gave the sink. */
async function streamed(callbacks: AgentCallbacks, patch: Partial<Parameters<typeof streamReply>[0]> = {}) {
  const events: AgentEvent[] = [];
  const output = await streamReply({
    callbacks,
    model: testModel,
    thinkingLevel: "off",
    systemPrompt: "You are a test.",
    messages: [user("hi")],
    tools: [],
    streamOptions: {},
    signal: new AbortController().signal,
    sink: (event) => events.push(event),
    ...patch,
  });
  return { ...output, events };
}

const types = (events: AgentEvent[]) => events.map((event) => event.type);

describe("streamOptionsOf", () => {
  const signal = new AbortController().signal;

  it("takes each allowlisted option from the context's data first, else from the callbacks", () => {
    const onPayload = () => {};
    const options = streamOptionsOf(
      { temperature: 0.2, maxTokens: undefined, sessionId: "s-1" },
      {
        temperature: 0.9,
        maxTokens: 512,
        apiKey: "sk-test",
        onPayload,
        beforeToolCall: () => {},
        streamFn: () => {},
      },
      "off",
      signal,
    );
    expect(options).toEqual({
      temperature: 0.2,
      sessionId: "s-1",
      maxTokens: 512,
      apiKey: "sk-test",
      onPayload,
      signal,
    });
  });

  it("leaves out options nobody set, and the reasoning level when thinking is off", () => {
    const options = streamOptionsOf({}, {}, "off", signal);
    expect(Object.keys(options)).toEqual(["signal"]);
    expect(options.signal).toBe(signal);
  });

  it("passes a thinking level other than off as the reasoning option", () => {
    expect(streamOptionsOf({}, {}, "high", signal).reasoning).toBe("high");
    expect(streamOptionsOf({}, {}, "minimal", signal).reasoning).toBe("minimal");
  });
});

describe("finalAnswerSpec", () => {
  const objectOutput = outputStateOf(z.object({ city: z.string() }));
  const listOutput = outputStateOf(z.array(z.string()));

  it("offers an object schema as the final-answer tool's arguments", () => {
    const spec = finalAnswerSpec({ request: objectOutput.request, viaTool: true, wrapped: false });
    expect(spec.name).toBe("final_answer");
    expect(spec.description).toContain("Give the final answer of the task");
    expect(spec.parameters).toBe(objectOutput.request.schema);
  });

  it("wraps a schema that is no object in a required value argument", () => {
    const spec = finalAnswerSpec({ request: listOutput.request, viaTool: true, wrapped: true });
    expect(spec.parameters).toEqual({
      type: "object",
      properties: { value: listOutput.request.schema },
      required: ["value"],
      additionalProperties: false,
    });
  });
});

describe("streamReply: the request", () => {
  it("sends the system prompt, the transcript in the model's roles, the tools' specs and the options", async () => {
    const model = scriptedModel([{ text: "Hello." }]);
    const note = { role: "note", text: "app-only", timestamp: 1 } as unknown as AgentMessage;
    const { message, started } = await streamed(
      { streamFn: model, temperature: 0.3 },
      { messages: [user("hi"), note], tools: [echoTool()], thinkingLevel: "low" },
    );
    expect(message.content).toEqual([{ type: "text", text: "Hello." }]);
    expect(message.stopReason).toBe("stop");
    expect(started).toBe(true);
    const [call] = model.calls;
    expect(call!.model).toBe(testModel);
    expect(call!.context.systemPrompt).toBe("You are a test.");
    expect(call!.context.messages.map((m) => m.role)).toEqual(["user"]);
    expect(call!.context.tools).toEqual([
      { name: "echo", description: "Echoes its text", parameters: echoTool().jsonSchema },
    ]);
    expect("output" in call!.context).toBe(false);
    expect(call!.options.temperature).toBe(0.3);
    expect(call!.options.reasoning).toBe("low");
  });

  it("shapes the transcript by the input filter, then transformContext, then convertToLlm", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const order: string[] = [];
    const tag = (step: string) => (messages: AgentMessage[]) => {
      order.push(step);
      return [...messages, user(step)];
    };
    await streamed(
      {
        streamFn: model,
        transformContext: async (messages) => tag("transform")(messages),
        convertToLlm: async (messages) => tag("convert")(messages) as never,
      },
      { inputFilter: async (messages) => tag("filter")(messages) },
    );
    expect(order).toEqual(["filter", "transform", "convert"]);
    expect(model.calls[0]!.context.messages.map((m) => m.content)).toEqual([
      "hi",
      "filter",
      "transform",
      "convert",
    ]);
  });

  it("asks for the typed output as a response format when it is not given through a tool", async () => {
    const model = scriptedModel([{ text: "{}" }]);
    const request = outputStateOf(z.object({ city: z.string() })).request;
    await streamed({ streamFn: model }, { output: { request, viaTool: false, wrapped: false } });
    expect(model.calls[0]!.context.output).toBe(request);
    expect(model.calls[0]!.context.tools).toEqual([]);
  });

  it("offers the final-answer tool after the agent's tools, and no response format, when given through a tool", async () => {
    const model = scriptedModel([{ text: "{}" }]);
    const output: ReplyOutput = {
      request: outputStateOf(z.object({ city: z.string() })).request,
      viaTool: true,
      wrapped: false,
    };
    await streamed({ streamFn: model }, { output, tools: [echoTool()] });
    expect(model.calls[0]!.context.tools.map((tool) => tool.name)).toEqual(["echo", "final_answer"]);
    expect("output" in model.calls[0]!.context).toBe(false);
  });

  it("takes the stream of a StreamFn that answers with a promise", async () => {
    const { message } = await streamed({ streamFn: async () => of(start(), done("late but fine")) });
    expect(message).toEqual(reply("late but fine"));
  });
});

describe("streamReply: the events", () => {
  it("emits message_start once, then message_update for each event, and resolves with the done message", async () => {
    const first = textDelta("Hel", "Hel");
    const second = textDelta("lo", "Hello");
    const { events, message, started } = await streamed({
      streamFn: sending(start(), first, second, done("Hello")),
    });
    expect(types(events)).toEqual(["message_start", "message_update", "message_update"]);
    expect(events[0]).toEqual({ type: "message_start", message: partialOf("") });
    expect(events[1]).toEqual({
      type: "message_update",
      message: first.partial,
      assistantMessageEvent: first,
    });
    expect(events[2]).toEqual({
      type: "message_update",
      message: second.partial,
      assistantMessageEvent: second,
    });
    expect(message).toEqual(reply("Hello"));
    expect(started).toBe(true);
  });

  it("starts the message at the first delta of a provider that sent no start event", async () => {
    const delta = textDelta("Hi", "Hi");
    const { events } = await streamed({ streamFn: sending(delta, done("Hi")) });
    expect(events[0]).toEqual({ type: "message_start", message: delta.partial });
    expect(types(events)).toEqual(["message_start", "message_update"]);
  });

  it("ignores events a provider sends after its final event", async () => {
    const { events, message } = await streamed({
      streamFn: scriptedModel([{ text: "Done.", eventsAfterDone: 2 }]),
    });
    expect(message.content).toEqual([{ type: "text", text: "Done." }]);
    const updates = events.filter((event) => event.type === "message_update");
    expect(updates.map((event) => event.assistantMessageEvent.type)).toEqual([
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
    ]);
  });

  it("ignores what a provider sends at once after its final event, and lets go of a stream left open", async () => {
    const late = textDelta("late", "late");
    const { events } = await streamed({ streamFn: sending(start(), done("Done."), late) });
    expect(types(events)).toEqual(["message_start"]);
    const open = sendingThenHanging(start(), done("Done."), late);
    const { message } = await streamed({ streamFn: open.streamFn });
    expect(message).toEqual(reply("Done."));
    expect(open.unsubscribed()).toBe(true);
  });

  it("carries the last partial message on a delta that comes without one", async () => {
    const bare = { type: "text_delta", contentIndex: 0, delta: "Hi" } as AssistantMessageEvent;
    const { events } = await streamed({ streamFn: sending(start("Hi"), bare, done("Hi")) });
    expect(events[1]).toEqual({
      type: "message_update",
      message: partialOf("Hi"),
      assistantMessageEvent: bare,
    });
    const alone = await streamed({ streamFn: sending(bare, done("Hi")) });
    expect(alone.events[0]).toMatchObject({
      type: "message_start",
      message: { role: "assistant", content: [], stopReason: "error", errorMessage: "" },
    });
  });

  it("resolves a provider's error event with its message, marked as failed", async () => {
    const failed = { ...reply("partial"), stopReason: "error" as const, errorMessage: "rate limited" };
    expect(
      (await streamed({ streamFn: sending(start(), { type: "error", reason: "error", error: failed }) }))
        .message,
    ).toEqual(failed);
    const unmarked = (reason: "error" | "aborted") =>
      streamed({ streamFn: sending({ type: "error", reason, error: reply("partial") }) });
    expect((await unmarked("error")).message.stopReason).toBe("error");
    expect((await unmarked("aborted")).message.stopReason).toBe("aborted");
    const failedOnAbort = { ...reply("partial"), stopReason: "error" as const };
    expect(
      (await streamed({ streamFn: sending({ type: "error", reason: "aborted", error: failedOnAbort }) }))
        .message.stopReason,
    ).toBe("error");
    const aborted = { ...reply("partial"), stopReason: "aborted" as const };
    expect(
      (await streamed({ streamFn: sending({ type: "error", reason: "error", error: aborted }) })).message
        .stopReason,
    ).toBe("aborted");
  });

  it.each([
    [
      "a done event without a message",
      sending(start(), { type: "done", reason: "stop" } as never),
      "Provider sent a done event without a message",
    ],
    [
      "a done event with a user message",
      sending({ type: "done", reason: "stop", message: { role: "user", content: [] } } as never),
      "Provider sent a done event without a message",
    ],
    [
      "a done event with a message of another role",
      sending({ type: "done", reason: "stop", message: user("x") } as never),
      "Provider sent a done event without a message",
    ],
    [
      "a done event with a message without content",
      sending({ type: "done", reason: "stop", message: { role: "assistant" } } as never),
      "Provider sent a done event without a message",
    ],
    [
      "an error event without a message",
      sending({ type: "error", reason: "error" } as never),
      "Provider sent an error event without a message",
    ],
    [
      "an event without a type",
      sending({ partial: partialOf("") } as never),
      "Provider sent an event without a type",
    ],
    [
      "a stream that ends without a final event",
      sending(start(), textDelta("a", "a")),
      "Provider stream ended without a final event",
    ],
    [
      "a stream that fails",
      () =>
        new Observable<AssistantMessageEvent>((subscriber) => {
          subscriber.next(start());
          subscriber.error(new Error("socket hang up"));
        }),
      "Provider stream failed: socket hang up",
    ],
    [
      "a StreamFn that throws",
      () => {
        throw new Error("no API key");
      },
      "no API key",
    ],
  ] as [string, StreamFn, string][])("turns %s into an error reply", async (_, streamFn, text) => {
    const { message } = await streamed({ streamFn });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(text);
    expect(message.model).toBe(testModel.id);
  });

  it("keeps the partial content of a reply the provider broke off", async () => {
    const { message, started } = await streamed({ streamFn: sending(start("Hal"), textDelta("Hal", "Hal")) });
    expect(message.content).toEqual([{ type: "text", text: "Hal" }]);
    expect(started).toBe(true);
  });

  it("turns a throwing transformContext into an error reply without calling the model", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const { message, started, events } = await streamed({
      streamFn: model,
      transformContext: () => {
        throw new Error("window too small");
      },
    });
    expect(message.errorMessage).toBe("window too small");
    expect(started).toBe(false);
    expect(events).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });
});

describe("streamReply: an abort", () => {
  it("ends a reply whose signal already fired at once, without calling the model", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const controller = new AbortController();
    controller.abort();
    const { message, started, events } = await streamed({ streamFn: model }, { signal: controller.signal });
    expect(message.stopReason).toBe("aborted");
    expect(message.errorMessage).toBe("Request was aborted");
    expect(started).toBe(false);
    expect(events).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });

  it("ends the reply with its partial content when the signal fires, even if the StreamFn ignores it", async () => {
    const controller = new AbortController();
    const { streamFn, signal, unsubscribed } = sendingThenHanging(start("Par"), textDelta("Par", "Par"));
    const reply = streamed({ streamFn }, { signal: controller.signal });
    expect((await signal).aborted).toBe(false);
    controller.abort();
    const { message, started } = await reply;
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "Par" }]);
    expect(started).toBe(true);
    expect(unsubscribed()).toBe(true);
  });

  it("never calls the model when the signal fires while transformContext runs", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const controller = new AbortController();
    const { message } = await streamed(
      {
        streamFn: model,
        transformContext: (messages) => {
          controller.abort();
          return messages;
        },
      },
      { signal: controller.signal },
    );
    expect(message.stopReason).toBe("aborted");
    expect(model.calls).toHaveLength(0);
  });

  it("drops the stream of a StreamFn that returns after the signal fired", async () => {
    const controller = new AbortController();
    let subscribed = false;
    const { message } = await streamed(
      {
        streamFn: async () => {
          controller.abort();
          return new Observable<AssistantMessageEvent>(() => {
            subscribed = true;
          });
        },
      },
      { signal: controller.signal },
    );
    expect(message.stopReason).toBe("aborted");
    expect(subscribed).toBe(false);
  });
});

describe("streamReply: the typed output as it streams", () => {
  const jsonOutput: ReplyOutput = {
    request: outputStateOf(z.object({ a: z.number(), b: z.number() })).request,
    viaTool: false,
    wrapped: false,
  };
  const outputs = (events: AgentEvent[]) =>
    events.flatMap((event) => (event.type === "output_delta" ? [event.partial] : []));

  const textStream = (...deltas: string[]) => {
    let whole = "";
    const events: AssistantMessageEvent[] = [start()];
    for (const delta of deltas) {
      whole += delta;
      events.push(textDelta(delta, whole));
    }
    events.push(
      { type: "text_end", contentIndex: 0, content: whole, partial: partialOf(whole) },
      done(whole),
    );
    return sending(...events);
  };

  it("shows the value parsed so far from the reply's JSON text, each value once", async () => {
    const { events } = await streamed(
      { streamFn: textStream('{"a":', " 1,", ' "b": 2}') },
      { output: jsonOutput },
    );
    expect(outputs(events)).toEqual([{}, { a: 1 }, { a: 1, b: 2 }]);
  });

  it("reads the JSON inside a code fence as it streams", async () => {
    const { events } = await streamed(
      { streamFn: textStream("```json\n", '{"a": 1', ', "b": 2', "}\n```") },
      { output: jsonOutput },
    );
    expect(outputs(events)).toEqual([{ a: 1 }, { a: 1, b: 2 }]);
  });

  it("shows the value of a scripted model's JSON reply", async () => {
    const { events } = await streamed(
      { streamFn: scriptedModel([{ text: '{"a": 1, "b": 2}' }]) },
      { output: jsonOutput },
    );
    expect(outputs(events).at(-1)).toEqual({ a: 1, b: 2 });
  });

  it("shows nothing for blank or non-JSON text", async () => {
    expect(
      outputs((await streamed({ streamFn: textStream("  ", "\n") }, { output: jsonOutput })).events),
    ).toEqual([]);
    expect(
      outputs((await streamed({ streamFn: textStream("Sorry,", " no.") }, { output: jsonOutput })).events),
    ).toEqual([]);
  });

  it("parses a long text again only once it grew by an eighth, and whole at its end", async () => {
    const value = "x".repeat(400);
    const deltas = ['{"a": 1, "note": "', ...value, '"}'];
    const { events } = await streamed({ streamFn: textStream(...deltas) }, { output: jsonOutput });
    const shown = outputs(events);
    expect(shown.length).toBeLessThan(deltas.length / 4);
    expect(shown.at(-1)).toEqual({ a: 1, note: value });
  });

  it("shows the final-answer call's arguments, unwrapped from value when wrapped, and ignores other calls", async () => {
    const listRequest = outputStateOf(z.array(z.string())).request;
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "not the answer" } },
          { name: "final_answer", arguments: { value: ["Oslo", "Bergen"] } },
        ],
      },
    ]);
    const { events } = await streamed(
      { streamFn: model },
      { output: { request: listRequest, viaTool: true, wrapped: true }, tools: [echoTool()] },
    );
    const shown = outputs(events);
    expect(shown.at(-1)).toEqual(["Oslo", "Bergen"]);
    expect(shown).not.toContain(undefined);
    expect(shown).not.toContainEqual({ text: "not the answer" });
    expect(shown).not.toContainEqual("not the answer");
  });

  it("shows an unwrapped final answer as the call's arguments", async () => {
    const request = outputStateOf(z.object({ city: z.string() })).request;
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "not the answer" } },
          { name: "final_answer", arguments: { city: "Oslo" } },
        ],
      },
    ]);
    const { events } = await streamed(
      { streamFn: model },
      { output: { request, viaTool: true, wrapped: false }, tools: [echoTool()] },
    );
    const shown = outputs(events);
    expect(shown.at(-1)).toEqual({ city: "Oslo" });
    expect(shown).not.toContainEqual({ text: "not the answer" });
  });

  it("reads a long final answer again only once its arguments grew by an eighth", async () => {
    const request = outputStateOf(z.object({ note: z.string() })).request;
    const note = "y".repeat(400);
    const model = scriptedModel([
      { toolCalls: [{ name: "final_answer", arguments: { note } }], deltas: 200 },
    ]);
    const { events } = await streamed(
      { streamFn: model },
      { output: { request, viaTool: true, wrapped: false } },
    );
    const shown = outputs(events);
    expect(shown.length).toBeGreaterThan(2);
    expect(shown.length).toBeLessThan(50);
    expect(shown.at(-1)).toEqual({ note });
  });

  it("reads no tool calls for a response format, and no text for the final-answer tool", async () => {
    const request = outputStateOf(z.object({ city: z.string() })).request;
    const calling = scriptedModel([{ text: '{"city": "Oslo"}' }]);
    const viaTool = await streamed(
      { streamFn: calling },
      { output: { request, viaTool: true, wrapped: false } },
    );
    expect(outputs(viaTool.events)).toEqual([]);
    const answering = scriptedModel([{ toolCalls: [{ name: "final_answer", arguments: { city: "Oslo" } }] }]);
    const viaFormat = await streamed(
      { streamFn: answering },
      { output: { request, viaTool: false, wrapped: false } },
    );
    expect(outputs(viaFormat.events)).toEqual([]);
  });
});

/** A stream request of the test model for `patch`. */
function request(patch: Partial<StreamRequest> = {}): StreamRequest {
  return {
    model: testModel,
    thinkingLevel: "off",
    systemPrompt: "You are a test.",
    messages: [user("hi")],
    toolNames: [],
    streamOptions: {},
    toolExecution: "parallel",
    hold: false,
    ...patch,
  };
}

/** The stream actor of an agent with `options`, invoked for `patch`. */
const invokeStream = (
  options: Partial<AgentMachineOptions> & Pick<AgentMachineOptions, "streamFn">,
  patch: Partial<StreamRequest> = {},
) => invokeActor(streamReplyActor(agentImplementations(options)), request(patch));

const delivered = (received: { type: string; events?: AgentEvent[] }[]) =>
  received.flatMap((event) => (event.type === "REPLY_EVENTS" ? event.events! : []));
const replyOf = (received: { type: string; reply?: unknown }[]) =>
  received.find((event) => event.type === "REPLY_STREAMED")!.reply as Record<string, unknown> & {
    message: AssistantMessage;
  };

describe("streamReplyActor", () => {
  it("sends the first event of a reply at once, before the reply goes on", async () => {
    const hanging = sendingThenHanging(start());
    const run = invokeStream({ streamFn: hanging.streamFn });
    const received = await run.until("REPLY_EVENTS");
    expect(types(delivered(received))).toEqual(["message_start"]);
    run.stop();
  });

  it("sends the reply's events, batched per microtask, and then the reply", async () => {
    const run = invokeStream({
      streamFn: sending(start(), textDelta("Hi", "Hi"), textDelta("!", "Hi!"), done("Hi!")),
    });
    const received = await run.until("REPLY_STREAMED");
    expect(received.map((event) => event.type)).toEqual(["REPLY_EVENTS", "REPLY_STREAMED"]);
    expect(types(delivered(received))).toEqual(["message_start", "message_update", "message_update"]);
    expect(replyOf(received)).toEqual({
      message: reply("Hi!"),
      started: true,
      sequential: false,
      held: false,
    });
  });

  it("streams with the active tools the request names, and the agent's stream options under the context's", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const other = echoTool("other");
    const run = invokeStream(
      { streamFn: model, tools: [echoTool(), other], temperature: 0.9, maxTokens: 100 },
      { toolNames: ["other", "missing"], streamOptions: { temperature: 0.1 }, thinkingLevel: "medium" },
    );
    await run.until("REPLY_STREAMED");
    const call = model.calls[0]!;
    expect(call.context.tools.map((tool) => tool.name)).toEqual(["other"]);
    expect(call.options).toMatchObject({ temperature: 0.1, maxTokens: 100, reasoning: "medium" });
  });

  it("asks for the request's typed output", async () => {
    const model = scriptedModel([{ text: "{}" }]);
    const output: ReplyOutput = {
      request: outputStateOf(z.object({ a: z.number() })).request,
      viaTool: false,
      wrapped: false,
    };
    await invokeStream({ streamFn: model }, { output }).until("REPLY_STREAMED");
    expect(model.calls[0]!.context.output).toBe(output.request);
  });

  it("marks a reply sequential when the agent runs tools one by one or a called tool must run alone", async () => {
    const lone: AgentTool = { ...echoTool("lone"), executionMode: "sequential" };
    const calls = (...names: string[]) =>
      scriptedModel([{ toolCalls: names.map((name) => ({ name, arguments: { text: "x" } })) }]);
    const sequentialOf = async (streamFn: StreamFn, toolExecution: StreamRequest["toolExecution"]) =>
      replyOf(
        await invokeStream(
          { streamFn, tools: [echoTool(), lone] },
          { toolNames: ["echo", "lone"], toolExecution },
        ).until("REPLY_STREAMED"),
      ).sequential;
    expect(await sequentialOf(calls("echo"), "parallel")).toBe(false);
    expect(await sequentialOf(calls("echo", "lone"), "parallel")).toBe(true);
    expect(await sequentialOf(calls("echo"), "sequential")).toBe(true);
    const unknown = replyOf(
      await invokeStream({ streamFn: calls("unknown"), tools: [echoTool()] }, { toolNames: ["echo"] }).until(
        "REPLY_STREAMED",
      ),
    );
    expect(unknown.sequential).toBe(false);
    expect(unknown.message.stopReason).toBe("toolUse");
  });

  it("holds every event of a held reply and hands them over with it", async () => {
    const run = invokeStream({ streamFn: scriptedModel([{ text: "Secret", deltas: 2 }]) }, { hold: true });
    const received = await run.until("REPLY_STREAMED");
    expect(received.map((event) => event.type)).toEqual(["REPLY_STREAMED"]);
    const streamedReply = replyOf(received);
    expect(streamedReply.held).toBe(true);
    expect(types(streamedReply.heldEvents as AgentEvent[])).toEqual([
      "message_start",
      "message_update",
      "message_update",
      "message_update",
      "message_update",
    ]);
  });

  it("ends the reply with its partial content on ABORT", async () => {
    const run = invokeStream({ streamFn: scriptedModel([{ text: "Half", hang: true }]) });
    await run.until(
      (event) =>
        event.type === "REPLY_EVENTS" &&
        event.events.some(
          (agentEvent: AgentEvent) =>
            agentEvent.type === "message_update" && agentEvent.assistantMessageEvent.type === "text_end",
        ),
    );
    run.child.send({ type: "ABORT" });
    const streamedReply = replyOf(await run.until("REPLY_STREAMED"));
    expect(streamedReply.message.stopReason).toBe("aborted");
    expect(streamedReply.message.content).toEqual([{ type: "text", text: "Half" }]);
  });

  it("aborts the StreamFn's signal when stopped mid-reply, and not once the reply was sent", async () => {
    const hanging = sendingThenHanging(start());
    const run = invokeStream({ streamFn: hanging.streamFn });
    const signal = await hanging.signal;
    run.stop();
    expect(signal.aborted).toBe(true);

    let finishedSignal: AbortSignal | undefined;
    const model = scriptedModel([{ text: "done" }]);
    const finished = invokeStream({
      streamFn: (m, context, options) => {
        finishedSignal = options.signal;
        return model(m, context, options);
      },
    });
    await finished.until("REPLY_STREAMED");
    finished.stop();
    expect(finishedSignal!.aborted).toBe(false);
  });

  it("turns a reply it cannot read into an error reply", async () => {
    const broken = { ...reply("x"), content: [null] } as unknown as AssistantMessage;
    const run = invokeStream({ streamFn: sending({ type: "done", reason: "stop", message: broken }) });
    const streamedReply = replyOf(await run.until("REPLY_STREAMED"));
    expect(streamedReply.message.stopReason).toBe("error");
    expect(streamedReply.message.errorMessage).toMatch(/null/);
    expect(streamedReply.message.content).toEqual([]);
    expect(streamedReply).toMatchObject({ started: false, sequential: false, held: false });
  });

  it("shows a handed-off agent's model the transcript through its input filter", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const handoff = defineHandoff({
      agent: { name: "billing" },
      inputFilter: (messages) => messages.slice(-1),
    });
    await invokeStream(
      { streamFn: model, tools: [handoff] },
      { activeAgent: "billing", messages: [user("old"), user("new")] },
    ).until("REPLY_STREAMED");
    expect(model.calls[0]!.context.messages.map((m) => m.content)).toEqual(["new"]);
    const unknownAgent = scriptedModel([{ text: "ok" }]);
    await invokeStream(
      { streamFn: unknownAgent, tools: [handoff] },
      { activeAgent: "nobody", messages: [user("old"), user("new")] },
    ).until("REPLY_STREAMED");
    expect(unknownAgent.calls[0]!.context.messages).toHaveLength(2);
  });
});

describe("streamReplyActor: parallel input guardrails", () => {
  const passing = (seen: AgentMessage[][]): Guardrail => ({
    name: "polite",
    mode: "parallel",
    check: ({ messages }) => {
      seen.push(messages);
      return { tripwire: false };
    },
  });

  it("checks the prompt beside the model call and releases the reply's events once it passed", async () => {
    const seen: AgentMessage[][] = [];
    const prompt = [user("Tell me a joke")];
    const run = invokeStream(
      { streamFn: scriptedModel([{ text: "Knock knock" }]), guardrails: { input: [passing(seen)] } },
      { inputCheck: prompt },
    );
    const received = await run.until("REPLY_STREAMED");
    expect(seen).toEqual([prompt]);
    expect(types(delivered(received))[0]).toBe("message_start");
    expect(received.at(-1)!.type).toBe("REPLY_STREAMED");
    const streamedReply = replyOf(received);
    expect(streamedReply.held).toBe(false);
    expect(streamedReply.inputTrip).toBeUndefined();
    expect(streamedReply.heldEvents).toBeUndefined();
  });

  it("releases the events once the check passes after the model call ended", async () => {
    // The check answers in a later macrotask, after every microtask of the synchronous stream below.
    const late: Guardrail = {
      name: "slow",
      mode: "parallel",
      check: () => new Promise((resolve) => setImmediate(() => resolve({ tripwire: false }))),
    };
    const run = invokeStream(
      { streamFn: sending(start(), textDelta("Hi", "Hi"), done("Hi")), guardrails: { input: [late] } },
      { inputCheck: [user("hi")] },
    );
    const received = await run.until("REPLY_STREAMED");
    expect(received.map((event) => event.type)).toEqual(["REPLY_EVENTS", "REPLY_STREAMED"]);
    expect(types(delivered(received))).toEqual(["message_start", "message_update"]);
    expect(replyOf(received).held).toBe(false);
  });

  it("ends the reply on ABORT while the check runs", async () => {
    const hanging = sendingThenHanging(start("Sure"));
    const pending: Guardrail = { name: "slow", mode: "parallel", check: () => new Promise(() => {}) };
    const run = invokeStream(
      { streamFn: hanging.streamFn, guardrails: { input: [pending] } },
      { inputCheck: [user("hi")] },
    );
    const signal = await hanging.signal;
    run.child.send({ type: "ABORT" });
    const streamedReply = replyOf(await run.until("REPLY_STREAMED"));
    expect(signal.aborted).toBe(true);
    expect(streamedReply.message.stopReason).toBe("aborted");
    expect(streamedReply.inputTrip).toBeUndefined();
  });

  it("keeps a held reply's events held after the check passed", async () => {
    const run = invokeStream(
      { streamFn: scriptedModel([{ text: "Knock knock" }]), guardrails: { input: [passing([])] } },
      { inputCheck: [user("joke")], hold: true },
    );
    const received = await run.until("REPLY_STREAMED");
    expect(delivered(received)).toEqual([]);
    expect(replyOf(received).held).toBe(true);
    expect(types(replyOf(received).heldEvents as AgentEvent[])[0]).toBe("message_start");
  });

  it("cuts the model call when the check trips and releases nothing of it", async () => {
    const hanging = sendingThenHanging(start("Sure"), textDelta("Sure", "Sure"));
    const tripping: Guardrail = {
      name: "no-secrets",
      mode: "parallel",
      check: async () => {
        await hanging.signal;
        return { tripwire: true, reason: "asks for a secret" };
      },
    };
    const run = invokeStream(
      { streamFn: hanging.streamFn, guardrails: { input: [tripping] } },
      { inputCheck: [user("key?")] },
    );
    const received = await run.until("REPLY_STREAMED");
    expect((await hanging.signal).aborted).toBe(true);
    expect(delivered(received)).toEqual([]);
    const streamedReply = replyOf(received);
    expect(streamedReply).toMatchObject({ started: false, sequential: false, held: false });
    expect(streamedReply.inputTrip).toMatchObject({
      trip: { guardrail: "no-secrets", reason: "asks for a secret" },
    });
  });

  it("runs only the parallel input guardrails, not the blocking ones", async () => {
    let blockingChecks = 0;
    const blocking: Guardrail = {
      name: "strict",
      check: () => {
        blockingChecks += 1;
        return { tripwire: true };
      },
    };
    const run = invokeStream(
      { streamFn: scriptedModel([{ text: "ok" }]), guardrails: { input: [blocking, passing([])] } },
      { inputCheck: [user("hi")] },
    );
    const streamedReply = replyOf(await run.until("REPLY_STREAMED"));
    expect(streamedReply.inputTrip).toBeUndefined();
    expect(blockingChecks).toBe(0);
  });
});
