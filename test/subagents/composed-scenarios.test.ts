import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { type AssistantMessage, emptyUsage, type Usage } from "../../src/types/messages.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import type { AgentTool } from "../../src/types/tool.js";
import { deferred, testModel } from "../support/loop-harness.js";
import { expectValidTranscript } from "./composed-invariants.js";
import { pathOf, supportTree, textOf, toolResults } from "./support.js";

type Gate = ReturnType<typeof deferred<void>>;

/** A StreamFn whose one reply streams `pieces` as text deltas, each once the test opens its gate. */
function gatedText(pieces: string[], gates: Gate[]): StreamFn {
  return async function* (model) {
    const message: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: "" }],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: 0,
    };
    const part = message.content[0] as { text: string };
    yield { type: "start", partial: message } satisfies AssistantMessageEvent;
    yield { type: "text_start", contentIndex: 0, partial: message };
    for (const [index, delta] of pieces.entries()) {
      await gates[index]!.promise;
      part.text += delta;
      yield { type: "text_delta", contentIndex: 0, delta, partial: message };
    }
    yield { type: "text_end", contentIndex: 0, content: part.text, partial: message };
    yield { type: "done", reason: "stop", message };
  };
}

/** Resolves with the next event of `agent` that `match` accepts. */
function next(agent: Agent, match: (event: AgentEvent) => boolean): Promise<AgentEvent> {
  return new Promise((resolve) => {
    const off = agent.subscribe((event) => {
      if (!match(event)) return;
      off();
      resolve(event);
    });
  });
}

const delegateTo = (...ids: string[]): ScriptedReply => ({
  toolCalls: ids.map((id) => ({ id, name: "helper", arguments: { task: id } })),
});

describe("sub-agents at work", () => {
  it("three parallel children stream deltas that interleave, each attributable by its agentPath", async () => {
    const ids = ["c1", "c2", "c3"];
    const pieces = Object.fromEntries(ids.map((id) => [id, [`${id}-a `, `${id}-b `, `${id}-c`]]));
    const gates = Object.fromEntries(ids.map((id) => [id, pieces[id]!.map(() => deferred())]));
    const helper = defineAgentTool({
      name: "helper",
      description: "Streams an answer",
      agent: ({ task }) => ({ streamFn: gatedText(pieces[task]!, gates[task]!) }),
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([delegateTo(...ids), { text: "all three answered" }]),
      tools: [helper],
    });
    const deltas: [string, string][] = [];
    const progress: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
        deltas.push([pathOf(event), event.assistantMessageEvent.delta]);
      if (event.type === "tool_execution_update") progress.push(event.toolCallId);
    });
    const started = Promise.all(
      ids.map((id) => next(agent, (e) => e.type === "message_start" && pathOf(e) === id)),
    );
    const done = agent.prompt("ask all three");
    await started;
    // Round-robin: the first delta of each child, then the second of each, …
    const order = [0, 1, 2].flatMap((index) => ids.map((id) => [id, index] as const));
    for (const [id, index] of order) {
      const seen = next(agent, (e) => e.type === "message_update" && pathOf(e) === id);
      gates[id]![index]!.resolve();
      await seen;
    }
    const result = await done;
    const children = deltas.filter(([path]) => path !== "");
    expect(children).toEqual(order.map(([id, index]) => [id, pieces[id]![index]!]));
    // The root's own deltas carry no path, and come once every child answered.
    expect(
      deltas
        .slice(children.length)
        .map(([, delta]) => delta)
        .join(""),
    ).toBe("all three answered");
    for (const id of ids)
      expect(
        deltas
          .filter(([path]) => path === id)
          .map(([, delta]) => delta)
          .join(""),
      ).toBe(pieces[id]!.join(""));
    // Each child's finished reply is also progress of the call that runs it.
    expect(new Set(progress)).toEqual(new Set(ids));
    const results = toolResults(result.messages);
    expect(Object.fromEntries(results.map((r) => [r.toolCallId, textOf(r)]))).toEqual(
      Object.fromEntries(ids.map((id) => [id, pieces[id]!.join("")])),
    );
    expect(result.stopReason).toBe("stop");
  });

  it("rolls usage up: each agent tool result carries its subtree's total, the root's run counts every agent", async () => {
    const usage = (input: number, output: number) => ({ input, output });
    const inner = defineAgentTool({
      name: "inner",
      description: "Innermost",
      agent: { streamFn: scriptedModel([{ text: "inner done", usage: usage(100, 10) }]) },
    });
    const outer = defineAgentTool({
      name: "outer",
      description: "Delegates once more",
      agent: {
        streamFn: scriptedModel([
          {
            toolCalls: [{ id: "i1", name: "inner", arguments: { task: "go" } }],
            usage: usage(20, 2),
          },
          { text: "outer done", usage: usage(30, 3) },
        ]),
        tools: [inner],
      },
    });
    const solo = defineAgentTool({
      name: "solo",
      description: "No children",
      agent: { streamFn: scriptedModel([{ text: "solo done", usage: usage(4000, 400) }]) },
    });
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        {
          toolCalls: [
            { id: "o1", name: "outer", arguments: { task: "a" } },
            { id: "s1", name: "solo", arguments: { task: "b" } },
          ],
          usage: usage(1, 1),
        },
        { text: "root done", usage: usage(5, 5) },
      ]),
      tools: [outer, solo],
    });
    const result = await agent.prompt("go");
    const byId = Object.fromEntries(toolResults(result.messages).map((r) => [r.toolCallId, r.usage]));
    expect(byId.o1).toMatchObject({ input: 20 + 30 + 100, output: 2 + 3 + 10, totalTokens: 165 });
    expect(byId.s1).toMatchObject({ input: 4000, output: 400, totalTokens: 4400 });
    // Summed here from the transcript, independently of the library's own roll-up.
    const total: Usage = emptyUsage();
    for (const message of result.messages) {
      const counted =
        message.role === "assistant" || message.role === "toolResult" ? message.usage : undefined;
      if (!counted) continue;
      total.input += counted.input;
      total.output += counted.output;
    }
    expect([total.input, total.output]).toEqual([1 + 5 + 150 + 4000, 1 + 5 + 15 + 400]);
  });

  it("maxDepth refuses a self-recursive agent tool with a clear tool error, and every level still answers", async () => {
    let calls = 0;
    // Every agent calls `recurse` first, then answers with what its call returned.
    const model: StreamFn = (m, context, options) => {
      const last = context.messages.at(-1);
      const reply: ScriptedReply =
        last?.role === "toolResult"
          ? { text: `got: ${textOf(last)}` }
          : { toolCalls: [{ id: `d${++calls}`, name: "recurse", arguments: { task: "deeper" } }] };
      return scriptedModel([reply])(m, context, options);
    };
    const recurse: AgentTool<{ task: string }> = defineAgentTool({
      name: "recurse",
      description: "Delegates to itself",
      maxDepth: 2,
      agent: () => ({ tools: [recurse] }),
    });
    const agent = new Agent({ model: testModel, streamFn: model, tools: [recurse] });
    const ends: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end" || event.type === "agent_end") ends.push(event);
    });
    const result = await agent.prompt("go deep");
    const refused = ends.find((e) => e.type === "tool_execution_end" && e.isError)!;
    expect(refused).toMatchObject({ toolCallId: "d3", agentPath: ["d1", "d2"], isError: true });
    const text = (refused as Extract<AgentEvent, { type: "tool_execution_end" }>).result.content;
    expect(text).toEqual([
      {
        type: "text",
        text: 'Agent tool "recurse" refused: sub-agents nest at most 2 deep (this call would start depth 3)',
      },
    ]);
    expect(calls).toBe(3);
    expect(ends.filter((e) => e.type === "agent_end").map(pathOf)).toEqual(["d1/d2", "d1", ""]);
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(textOf(toolResults(result.messages)[0]!)).toMatch(/^got: got: Agent tool "recurse" refused/);
  });

  it("the default maxDepth (3) refuses the fourth level", async () => {
    let calls = 0;
    const model: StreamFn = (m, context, options) => {
      const last = context.messages.at(-1);
      const reply: ScriptedReply =
        last?.role === "toolResult"
          ? { text: "up" }
          : { toolCalls: [{ id: `d${++calls}`, name: "recurse", arguments: { task: "deeper" } }] };
      return scriptedModel([reply])(m, context, options);
    };
    const recurse: AgentTool<{ task: string }> = defineAgentTool({
      name: "recurse",
      description: "Delegates to itself",
      agent: () => ({ tools: [recurse] }),
    });
    const agent = new Agent({ model: testModel, streamFn: model, tools: [recurse] });
    const refusals: AgentEvent[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end" && event.isError) refusals.push(event);
    });
    await agent.prompt("go deep");
    expect(refusals.map(pathOf)).toEqual(["d1/d2/d3"]);
    expect(JSON.stringify(refusals[0])).toContain("nest at most 3 deep (this call would start depth 4)");
  });

  it("steer(message, { agentPath }) reaches the running child: its next model call sees it, the root's never", async () => {
    const gate = deferred<void>();
    const childModel = scriptedModel([
      (): ScriptedReply => ({ text: "first answer" }),
      { text: "answer after steering" },
    ]);
    const heldChild: StreamFn = async (m, context, options) => {
      if (childModel.calls.length === 0) await gate.promise;
      return childModel(m, context, options);
    };
    const helper = defineAgentTool({ name: "helper", description: "Helps", agent: { streamFn: heldChild } });
    const rootModel = scriptedModel([delegateTo("h1"), { text: "root done" }]);
    const agent = new Agent({ model: testModel, streamFn: rootModel, tools: [helper] });
    const childStarted = next(agent, (e) => e.type === "turn_start" && pathOf(e) === "h1");
    const done = agent.prompt("go");
    await childStarted;
    expect(() => agent.steer("nobody", { agentPath: ["h9"] })).toThrow("STEER: no sub-agent runs at h9");
    agent.steer("also mention the refund", { agentPath: ["h1"] });
    expect(agent.queued.steering).toEqual([]);
    gate.resolve();
    const result = await done;
    expect(childModel.calls).toHaveLength(2);
    const seen = childModel.calls[1]!.context.messages.map((m) => (m.role === "user" ? m.content : m.role));
    expect(seen).toEqual(["h1", "assistant", "also mention the refund"]);
    for (const call of rootModel.calls)
      expect(JSON.stringify(call.context.messages)).not.toContain("also mention the refund");
    expect(textOf(toolResults(result.messages)[0]!)).toBe("answer after steering");
  });

  it("abort while a grandchild waits for approval: every call at every level answered, agent_end at every level, no actor left", async () => {
    const ran = { count: 0, keys: [] as string[] };
    const { tools, rootScript } = supportTree(ran);
    const agent = new Agent({ model: testModel, streamFn: scriptedModel(rootScript), tools });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });
    const asked = next(agent, (e) => e.type === "tool_approval_request");
    const done = agent.prompt("help");
    await asked;
    agent.abort();
    const result = await done;
    expect(result.stopReason).toBe("aborted");
    expect(ran.count).toBe(0);
    const ends = events.filter(
      (e): e is Extract<AgentEvent, { type: "agent_end" }> => e.type === "agent_end",
    );
    expect(ends.map(pathOf)).toEqual(["s1/b1", "s1", ""]);
    for (const end of ends) expectValidTranscript(end.messages, pathOf(end) || "root");
    expect(textOf(toolResults(ends[0]!.messages)[0]!)).toBe("Tool call aborted");
    expect(Object.keys(agent.actor.getSnapshot().children)).toEqual([]);
    expect(agent.state.awaitingApproval).toEqual([]);
  });
});
