import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import type { PersistedAgent } from "../../src/agent/agent-snapshot.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage, ToolResultMessage } from "../../src/types/messages.js";
import type { SubAgentSpec } from "../../src/types/sub-agent.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";

// The tool call states of agent tools (`startingAgent` → `delegating` → `collecting`) crossed along
// every transition: a plain delegation, one after approval, one refused by the depth limit, an abort
// while the child works, `afterToolCall` after collecting, and restores in `collecting` and
// `startingAgent` (RESUME re-enters them). Every run ends with each call answered once at each level.

type Inspect = (event: InspectionEvent) => void;

const delegate = (id: string, task = "do it"): ScriptedTurn => ({
  toolCalls: [{ id, name: "helper", arguments: { task } }],
});

function helperTool(spec: () => SubAgentSpec, extra: { requiresApproval?: boolean; maxDepth?: number } = {}) {
  return defineAgentTool({ name: "helper", description: "Helps", agent: () => spec(), ...extra });
}

function agentOf(inspect: Inspect, script: ScriptedTurn[], options: Partial<AgentOptions> = {}) {
  const events: AgentEvent[] = [];
  const agent = new Agent({ model: testModel, streamFn: scriptedModel(script), inspect, ...options });
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, events };
}

const roleOf = (m: AgentMessage) => (m as { role: string }).role;
const resultsOf = (messages: readonly AgentMessage[]) =>
  messages.filter((m): m is ToolResultMessage => roleOf(m) === "toolResult");

/** Idle, no child actor left, each root call answered once, `agent_end` after every `agent_start` per path. */
function expectFinished(agent: Agent, events: AgentEvent[]) {
  expect(agent.actor.getSnapshot().value).toBe("idle");
  expect(Object.keys(agent.actor.getSnapshot().children)).toEqual([]);
  const calls = agent.state.messages.flatMap((m) =>
    roleOf(m) === "assistant"
      ? (m as { content: { type: string; id?: string }[] }).content
          .filter((b) => b.type === "toolCall")
          .map((b) => b.id)
      : [],
  );
  expect(
    resultsOf(agent.state.messages)
      .map((r) => r.toolCallId)
      .sort(),
  ).toEqual(calls.sort());
  const count = (type: string) => {
    const byPath = new Map<string, number>();
    for (const e of events)
      if (e.type === type)
        byPath.set((e.agentPath ?? []).join("/"), (byPath.get((e.agentPath ?? []).join("/")) ?? 0) + 1);
    return byPath;
  };
  expect(count("agent_end")).toEqual(count("agent_start"));
}

export function describeSubAgentPaths(inspect: Inspect) {
  describe("toolCallMachine: agent tools", () => {
    it("ready → startingAgent → delegating → collecting → settled", async () => {
      const helper = helperTool(() => ({ streamFn: scriptedModel([{ text: "child says hi" }]) }));
      const { agent, events } = agentOf(inspect, [delegate("h1"), { text: "root done" }], {
        tools: [helper],
      });
      await agent.prompt("go");
      expect(resultsOf(agent.state.messages)[0]?.content).toEqual([{ type: "text", text: "child says hi" }]);
      expectFinished(agent, events);
    });

    it("awaitingApproval —APPROVE→ startingAgent; collecting → finalizing with afterToolCall", async () => {
      const helper = helperTool(() => ({ streamFn: scriptedModel([{ text: "approved child" }]) }), {
        requiresApproval: true,
      });
      const { agent, events } = agentOf(inspect, [delegate("h1"), { text: "root done" }], {
        tools: [helper],
        afterToolCall: ({ result }) => ({
          content: [{ type: "text", text: `after: ${JSON.stringify(result.content)}` }],
        }),
      });
      agent.subscribe((event) => {
        if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
      });
      await agent.prompt("go");
      expect(resultsOf(agent.state.messages)[0]?.content[0]).toMatchObject({
        text: expect.stringContaining("approved child"),
      });
      expectFinished(agent, events);
    });

    it("startingAgent —REJECTED→ settled: a self-recursive tool stops at maxDepth", async () => {
      const child = scriptedModel([delegate("h2"), { text: "child gave up" }]);
      const helper = helperTool(() => ({ streamFn: child, tools: [helper] }), { maxDepth: 1 });
      const { agent, events } = agentOf(inspect, [delegate("h1"), { text: "root done" }], {
        tools: [helper],
      });
      await agent.prompt("go");
      const refused = events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "h2");
      expect(refused).toMatchObject({ agentPath: ["h1"], isError: true });
      expect(JSON.stringify(refused)).toContain("sub-agents nest at most 1 deep");
      expectFinished(agent, events);
    });

    it("delegating —ABORT→ the child aborts first: every call at both levels answered", async () => {
      const gate = deferred();
      const started = deferred();
      const helper = helperTool(() => ({
        streamFn: scriptedModel([{ toolCalls: [{ id: "e1", name: "echo", arguments: { text: "slow" } }] }]),
        tools: [
          echoTool("echo", () => {
            started.resolve();
            return gate.promise;
          }),
        ],
      }));
      const { agent, events } = agentOf(inspect, [delegate("h1")], { tools: [helper] });
      const done = agent.prompt("go");
      await started.promise;
      agent.abort();
      expect((await done).stopReason).toBe("aborted");
      gate.resolve();
      const childEnd = events.find((e) => e.type === "agent_end" && e.agentPath?.join("/") === "h1");
      expect(childEnd).toMatchObject({ stopReason: "aborted" });
      const childResults = events.filter(
        (e) => e.type === "message_end" && e.agentPath?.[0] === "h1" && roleOf(e.message) === "toolResult",
      );
      expect(childResults).toHaveLength(1);
      expectFinished(agent, events);
    });

    it("a sub-agent streaming —ABORT→ idle at once: its run ends with agent_end before its call is stopped", async () => {
      const streaming = deferred();
      const helper = helperTool(() => ({
        streamFn: scriptedModel([{ text: "never finished", hang: true }]),
      }));
      const { agent, events } = agentOf(inspect, [delegate("h1")], { tools: [helper] });
      agent.subscribe((event) => {
        if (event.type === "message_update" && event.agentPath) streaming.resolve();
      });
      const done = agent.prompt("go");
      await streaming.promise;
      agent.abort();
      expect((await done).stopReason).toBe("aborted");
      const childEnd = events.findIndex((e) => e.type === "agent_end" && e.agentPath?.join("/") === "h1");
      const callEnd = events.findIndex((e) => e.type === "tool_execution_end" && e.toolCallId === "h1");
      expect(childEnd).toBeGreaterThan(-1);
      expect(childEnd).toBeLessThan(callEnd);
      expect(events[childEnd]).toMatchObject({ stopReason: "aborted" });
      expectFinished(agent, events);
    });

    it("collecting and startingAgent —RESUME→ re-entered after a restore", async () => {
      const helperOf = (text: string) => helperTool(() => ({ streamFn: scriptedModel([{ text }]) }));
      const { agent } = agentOf(inspect, [delegate("h1"), { text: "root done" }], {
        tools: [helperOf("first")],
      });
      let saved: PersistedAgent | undefined;
      agent.subscribe((event) => {
        if (event.type === "agent_end" && event.agentPath)
          saved = JSON.parse(JSON.stringify(agent.persist()));
      });
      await agent.prompt("go");
      const call = saved!.snapshot.children.h1!;
      expect(call.snapshot.value).toBe("collecting");

      const fromCollecting = Agent.restore(saved!, {
        streamFn: scriptedModel([{ text: "root done" }]),
        tools: [helperOf("unused")],
        inspect,
      });
      await fromCollecting.waitForIdle();
      expect(resultsOf(fromCollecting.state.messages)[0]?.content).toEqual([{ type: "text", text: "first" }]);

      // The same call one step earlier: its child never started, so it starts again.
      const starting = structuredClone(saved!);
      const early = starting.snapshot.children.h1!.snapshot as {
        value: unknown;
        context: Record<string, unknown>;
      };
      early.value = "startingAgent";
      delete early.context.delegate;
      delete early.context.agentEnd;
      const fromStarting = Agent.restore(starting, {
        streamFn: scriptedModel([{ text: "root done" }]),
        tools: [helperOf("second")],
        inspect,
      });
      const events: AgentEvent[] = [];
      fromStarting.subscribe((event) => {
        events.push(event);
      });
      await fromStarting.waitForIdle();
      expect(resultsOf(fromStarting.state.messages)[0]?.content).toEqual([{ type: "text", text: "second" }]);
      expectFinished(
        fromStarting,
        events.filter((e) => e.type !== "agent_end" || e.agentPath),
      );
    });
  });
}
