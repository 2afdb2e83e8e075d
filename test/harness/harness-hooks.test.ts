import { describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { StreamFn } from "../../src/types/stream.js";
import {
  createHarness,
  replyText,
  requestUserTexts,
  roles,
  sessionMessages,
  texts,
} from "../support/harness-support.js";
import { echoTool, user } from "../support/loop-harness.js";

describe("harness hooks", () => {
  it("before_agent_start: messages are appended after the prompt and persisted; systemPrompt chains", async () => {
    const { harness, model, session } = await createHarness([{ text: "a" }]);
    const seenPrompts: string[] = [];
    harness.on("before_agent_start", (event) => {
      seenPrompts.push(event.systemPrompt);
      return { messages: [user("hook")], systemPrompt: `${event.systemPrompt} +one` };
    });
    harness.on("before_agent_start", (event) => {
      seenPrompts.push(event.systemPrompt);
      expect(texts(event.messages)).toEqual(["hook"]);
      expect(event.prompt).toBe("hello");
      return { systemPrompt: `${event.systemPrompt} +two` };
    });
    await harness.prompt("hello");
    expect(seenPrompts).toEqual(["You are a helpful assistant.", "You are a helpful assistant. +one"]);
    expect(model.calls[0]!.context.systemPrompt).toBe("You are a helpful assistant. +one +two");
    expect(requestUserTexts(model.calls[0]!.context)).toEqual(["hello", "hook"]);
    expect(texts(sessionMessages(session))).toEqual(["hello", "hook", "a"]);
  });

  it("context: a pipeline whose result the model sees, without changing the transcript", async () => {
    const { harness, model } = await createHarness([{ text: "a" }]);
    harness.on("context", (event) => ({ messages: [...event.messages, user("extra")] }));
    harness.on("context", (event) => {
      expect(texts(event.messages)).toEqual(["p", "extra"]);
      return { messages: event.messages.map((m) => (m.role === "user" ? user(`${texts([m])[0]}!`) : m)) };
    });
    await harness.prompt("p");
    expect(requestUserTexts(model.calls[0]!.context)).toEqual(["p!", "extra!"]);
    expect(texts(harness.messages)).toEqual(["p", "a"]);
  });

  it("a throwing context hook ends the run with a persisted error message; the harness stays usable", async () => {
    const { harness, session, events } = await createHarness([{ text: "recovered" }]);
    const off = harness.on("context", () => {
      throw new Error("boom");
    });
    const { reply: failed } = await harness.prompt("p");
    expect(failed.stopReason).toBe("error");
    expect(failed.errorMessage).toBe('Hook "context" failed: boom');
    expect(events.some((e) => e.type === "agent_end")).toBe(true);
    expect(roles(sessionMessages(session))).toEqual(["user", "assistant"]);
    off();
    expect(replyText((await harness.prompt("again")).reply)).toBe("recovered");
  });

  it("a throwing before_agent_start hook fails the run with a persisted error message", async () => {
    const { harness, model, session } = await createHarness([{ text: "never" }]);
    harness.on("before_agent_start", () => {
      throw new Error("nope");
    });
    const { reply } = await harness.prompt("p");
    expect(reply).toMatchObject({
      stopReason: "error",
      errorMessage: 'Hook "before_agent_start" failed: nope',
    });
    expect(model.calls).toHaveLength(0);
    expect(roles(sessionMessages(session))).toEqual(["user", "assistant"]);
  });

  it("before_provider_request patches stream options per request; headers merge per key", async () => {
    const { harness, model } = await createHarness([{ text: "a" }], {
      streamOptions: { timeoutMs: 1000, headers: { a: "1", b: "2" }, metadata: { run: 1 } },
    });
    harness.on("before_provider_request", (event) => {
      expect(event.sessionId).toBe(harness.session.id);
      return { streamOptions: { timeoutMs: 5, headers: { b: undefined, c: "3" } } };
    });
    harness.on("before_provider_request", (event) => {
      expect(event.streamOptions.headers).toEqual({ a: "1", c: "3" });
      return { streamOptions: { maxRetries: 0 } };
    });
    await harness.prompt("p");
    expect(model.calls[0]!.options).toMatchObject({
      timeoutMs: 5,
      maxRetries: 0,
      headers: { a: "1", c: "3" },
      metadata: { run: 1 },
    });
    expect(harness.streamOptions.timeoutMs).toBe(1000);
  });

  it("before_provider_payload and after_provider_response are wired to onPayload and onResponse", async () => {
    const scripted = scriptedModel([{ text: "a" }]);
    const sent: unknown[] = [];
    const streamFn: StreamFn = async (model, context, options) => {
      sent.push(await options.onPayload?.({ body: 1 }, model));
      await options.onResponse?.({ status: 200, headers: { "x-id": "r1" } }, model);
      return scripted(model, context, options);
    };
    const { harness } = await createHarness([], { streamFn });
    harness.on("before_provider_payload", (event) => ({
      payload: { ...(event.payload as object), one: true },
    }));
    harness.on("before_provider_payload", (event) => ({
      payload: { ...(event.payload as object), two: true },
    }));
    const responses: unknown[] = [];
    harness.on("after_provider_response", (event) => {
      responses.push({ status: event.status, headers: event.headers });
    });
    await harness.prompt("p");
    expect(sent).toEqual([{ body: 1, one: true, two: true }]);
    expect(responses).toEqual([{ status: 200, headers: { "x-id": "r1" } }]);
  });

  it("tool_call stops at the first block; tool_result patches of executed calls form a pipeline and are persisted", async () => {
    const { harness, session } = await createHarness(
      [
        {
          toolCalls: [
            { name: "echo", arguments: { text: "blocked" }, id: "c1" },
            { name: "echo", arguments: { text: "ok" }, id: "c2" },
          ],
        },
        { text: "done" },
      ],
      { tools: [echoTool()] },
    );
    const calls: string[] = [];
    harness.on("tool_call", (event) => {
      calls.push(`first:${event.toolCallId}`);
      expect(event.input).toMatchObject({ text: expect.any(String) });
      return (event.input as { text: string }).text === "blocked" ? { block: true, reason: "no" } : undefined;
    });
    harness.on("tool_call", (event) => {
      calls.push(`second:${event.toolCallId}`);
    });
    harness.on("tool_result", (event) => ({
      content: [
        { type: "text", text: `${texts([{ role: "toolResult", content: event.content } as never])[0]} +1` },
      ],
    }));
    harness.on("tool_result", (event) => ({
      content: [{ type: "text", text: `${(event.content[0] as { text: string }).text} +2` }],
      details: { patched: true },
    }));
    await harness.prompt("go");
    expect(calls).toEqual(["first:c1", "first:c2", "second:c2"]);
    const results = sessionMessages(session).filter((m) => m.role === "toolResult");
    // A blocked call never ran, so tool_result does not see it (as with the loop's afterToolCall).
    expect(texts(results)).toEqual(["no", "echo: ok +1 +2"]);
    expect((results[1] as { details?: unknown }).details).toEqual({ patched: true });
  });

  it("loop hooks are read when needed: a handler added during a run applies from that run's next step", async () => {
    const { harness, model } = await createHarness(
      [
        { toolCalls: [{ name: "echo", arguments: { text: "first" }, id: "a1" }] },
        { text: "done" },
        { toolCalls: [{ name: "echo", arguments: { text: "second" }, id: "b1" }] },
        { text: "done again" },
      ],
      { tools: [echoTool()] },
    );
    const seen: string[] = [];
    let registered = false;
    harness.agent.subscribe((event) => {
      if (event.type !== "tool_execution_end" || registered) return;
      registered = true;
      // Registered mid-run, after a1's result: the next request of this run already sees the context hook.
      harness.on("tool_result", (result) => {
        seen.push(`result:${result.toolCallId}`);
      });
      harness.on("context", ({ messages }) => {
        seen.push(`context:${messages.length}`);
      });
    });
    harness.on("tool_call", (call) => {
      seen.push(`call:${call.toolCallId}`);
    });
    await harness.prompt("go");
    expect(seen).toEqual(["call:a1", "context:3"]);
    await harness.prompt("again");
    expect(seen).toEqual(["call:a1", "context:3", "context:5", "call:b1", "result:b1", "context:7"]);
    expect(model.calls).toHaveLength(4);
  });

  it("tool_result terminate stops the loop after the batch", async () => {
    const { harness, model } = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }],
      {
        tools: [echoTool()],
      },
    );
    harness.on("tool_result", () => ({ terminate: true }));
    await harness.prompt("go");
    expect(model.calls).toHaveLength(1);
    expect(roles(harness.messages)).toEqual(["user", "assistant", "toolResult"]);
  });

  it("a throwing tool hook gives an error tool result, then the run ends with a persisted error message", async () => {
    const { harness, model, session } = await createHarness(
      [
        { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
        { text: "never asked" },
        { text: "next" },
      ],
      { tools: [echoTool()] },
    );
    const off = harness.on("tool_call", () => {
      throw new Error("tool hook broke");
    });
    const { reply } = await harness.prompt("go");
    expect(reply).toMatchObject({
      stopReason: "error",
      errorMessage: 'Hook "tool_call" failed: tool hook broke',
    });
    expect(model.calls).toHaveLength(1);
    expect(roles(sessionMessages(session))).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(sessionMessages(session)[2]).toMatchObject({ isError: true });
    off();
    expect(replyText((await harness.prompt("again")).reply)).toBe("never asked");
  });

  it("observed events reach on() handlers; a throwing observer is reported, not propagated", async () => {
    const reported: string[] = [];
    const { harness } = await createHarness([], { onHandlerError: (_, type) => reported.push(type) });
    const seen: string[] = [];
    harness.on("thinking_level_update", (event) => {
      seen.push(`${event.previousLevel}->${event.level}`);
    });
    harness.on("thinking_level_update", () => {
      throw new Error("observer broke");
    });
    harness.setThinkingLevel("high");
    expect(seen).toEqual(["off->high"]);
    expect(reported).toEqual(["thinking_level_update"]);
    expect(() => harness.on("no_such_hook" as never, (() => {}) as never)).toThrow(/Unknown hook/);
  });

  it("handlers can be removed and run in registration order", async () => {
    const { harness } = await createHarness([{ text: "a" }]);
    const order: number[] = [];
    const off1 = harness.on("context", () => {
      order.push(1);
    });
    harness.on("context", () => {
      order.push(2);
    });
    off1();
    await harness.prompt("p");
    expect(order).toEqual([2]);
    expect(harness).toBeInstanceOf(AgentHarness);
  });
});
