/**
 * Transitions are pure: XState's `transition(machine, snapshot, event)` computes the next snapshot and
 * the actions to run without running any of them. Every event the agent actor and its tool-call
 * children receive during real runs (seen through the inspection API, before the actor processes it)
 * is also given to `transition(...)`, with every user callback recording whether it was called while
 * that pure computation ran. None may be.
 */
import { describe, expect, it } from "vitest";
import { type AnyActorLogic, type AnyActorRef, createActor, type InspectionEvent, transition } from "xstate";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { agentMachine } from "../../src/machines/agent/agent.machine.js";
import { toolCallMachine } from "../../src/machines/tool-call/tool-call.machine.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { testModel, user } from "../support/loop-harness.js";

/** XState's warning about a built-in action (`assign()`, `emit()`…) made while a custom action runs. */
const BUILT_IN_ACTION_IN_CUSTOM_ACTION = /^Custom actions should not call `\w+\(\)` directly/;

/** Records calls of user code made while a pure transition is computed. */
class PurityProbe {
  computing = false;
  readonly calledDuringTransition: string[] = [];
  readonly called = new Set<string>();
  transitionsChecked = 0;
  record(name: string): void {
    this.called.add(name);
    if (this.computing) this.calledDuringTransition.push(name);
  }
  readonly inspect = (event: InspectionEvent) => {
    if (event.type !== "@xstate.event") return;
    const ref = event.actorRef as unknown as { logic?: AnyActorLogic; getSnapshot(): unknown };
    // The machines `createAgentMachine` provides (a sub-agent's logic presents itself as one).
    const logic = ref.logic as { id?: string } | undefined;
    if (logic?.id !== agentMachine.id && logic?.id !== toolCallMachine.id) return;
    const snapshot = ref.getSnapshot() as { status?: string; machine?: typeof agentMachine };
    if (snapshot.status !== "active") return;
    this.computing = true;
    // Inspection events of an event sent from a custom action arrive while XState runs that action,
    // so the built-in actions (`assign`, `emit`…) the pure transition here resolves make XState warn
    // that custom actions should not call them: expected in this probe, and the only warning dropped.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!BUILT_IN_ACTION_IN_CUSTOM_ACTION.test(String(args[0]))) warn(...args);
    };
    try {
      if (logic.id === agentMachine.id)
        transition(snapshot.machine!, snapshot as never, event.event as never);
      else pureChildTransition(logic as typeof toolCallMachine, snapshot, event.event);
      this.transitionsChecked += 1;
    } finally {
      console.warn = warn;
      this.computing = false;
    }
  };
}

/**
 * XState's `transition()` for a child machine: the same inert actor scope (actions are collected, never
 * run; nothing is deferred or started), but with a parent, which `sendParent` needs to resolve.
 */
function pureChildTransition(logic: typeof toolCallMachine, snapshot: unknown, event: unknown): void {
  const parent = createActor(agentMachine, undefined as never);
  const self = createActor(logic, { parent } as never) as AnyActorRef;
  const scope = {
    self,
    defer: () => {},
    id: "",
    logger: () => {},
    sessionId: "",
    stopChild: () => {},
    system: self.system,
    emit: () => {},
    actionExecutor: () => {},
  };
  logic.transition(snapshot as never, event as never, scope as never);
}

function instrumentedAgent(probe: PurityProbe, replies: Parameters<typeof scriptedModel>[0]) {
  const r = (name: string) => probe.record(name);
  const gate = { steering: [] as AgentMessage[] };
  const echo = defineTool({
    name: "echo",
    description: "Echoes",
    parameters: z.object({ text: z.string() }),
    prepareArguments: (raw) => {
      r("prepareArguments");
      return raw;
    },
    requiresApproval: (args) => {
      r("requiresApproval");
      return args.text === "ask";
    },
    execute: async ({ text }) => {
      r("execute");
      return { content: [{ type: "text", text }] };
    },
  });
  const slow = defineTool({
    name: "slow",
    description: "Never finishes",
    parameters: z.object({}),
    execute: () => {
      r("execute");
      return new Promise<never>(() => {});
    },
  });
  const colour = defineClientTool({
    name: "colour",
    description: "Asks the client",
    parameters: z.object({}),
  });
  const model = scriptedModel(replies);
  const agent = new Agent({
    model: testModel,
    streamFn: (m, context, options) => {
      r("streamFn");
      return model(m, context, options);
    },
    tools: [echo, slow, colour],
    transformContext: async (messages) => {
      r("transformContext");
      return messages;
    },
    convertToLlm: (messages) => {
      r("convertToLlm");
      return messages.filter((m) => m.role !== ("custom" as never)) as never;
    },
    beforeToolCall: async () => {
      r("beforeToolCall");
      return undefined;
    },
    afterToolCall: async () => {
      r("afterToolCall");
      return undefined;
    },
    prepareNextTurn: () => {
      r("prepareNextTurn");
      return undefined;
    },
    shouldStopAfterTurn: () => {
      r("shouldStopAfterTurn");
      return false;
    },
    getSteeringMessages: () => {
      r("getSteeringMessages");
      return gate.steering.splice(0);
    },
    getFollowUpMessages: async () => {
      r("getFollowUpMessages");
      return [];
    },
    restoreQueuedMessages: () => r("restoreQueuedMessages"),
    steering: "betweenTools",
    inspect: probe.inspect,
  });
  return { agent, gate };
}

const when = (agent: Agent, type: AgentEvent["type"]) =>
  new Promise<AgentEvent>((resolve) => {
    const off = agent.subscribe((event) => {
      if (event.type === type) {
        off();
        resolve(event);
      }
    });
  });

describe("agentMachine and toolCallMachine transitions are pure", () => {
  it("computing any transition of a run with tools, hooks, approvals, a client tool, steering and follow-ups calls no user code", async () => {
    const probe = new PurityProbe();
    const { agent, gate } = instrumentedAgent(probe, [
      {
        toolCalls: [
          { name: "echo", arguments: { text: "a" } },
          { name: "echo", arguments: { text: "ask" } },
          { name: "colour", arguments: {} },
        ],
      },
      { toolCalls: [{ name: "echo", arguments: { text: "b" } }] },
      { text: "done" },
      { text: "after the follow-up" },
    ]);
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request") agent.approveToolCall(event.toolCallId);
      if (event.type === "tool_client_request")
        agent.answerToolCall(event.toolCallId, { content: [{ type: "text", text: "teal" }] });
      if (event.type === "tool_execution_end" && event.toolCallId && gate.steering.length === 0)
        gate.steering.push(user("steer between tools"));
    });
    agent.followUp("a follow-up");
    await agent.prompt("go");
    expect(probe.calledDuringTransition).toEqual([]);
    // The run really exercised the user code whose purity is checked.
    for (const name of [
      "streamFn",
      "transformContext",
      "convertToLlm",
      "prepareArguments",
      "requiresApproval",
      "beforeToolCall",
      "execute",
      "afterToolCall",
      "prepareNextTurn",
      "shouldStopAfterTurn",
      "getSteeringMessages",
    ])
      expect(probe.called, name).toContain(name);
    expect(probe.transitionsChecked).toBeGreaterThan(30);
  });

  it("the same holds for abort, FAIL and persist/restore", async () => {
    const probe = new PurityProbe();
    const { agent } = instrumentedAgent(probe, [{ toolCalls: [{ name: "slow", arguments: {} }] }]);
    const started = when(agent, "tool_execution_start");
    const run = agent.prompt("go");
    await started;
    const saved = JSON.stringify(agent.persist());
    agent.abort();
    await run;
    // The call was persisted before it ran (in preflight): the restored agent runs it.
    const quick = defineTool({
      name: "slow",
      description: "Finishes at once here",
      parameters: z.object({}),
      execute: async () => ({ content: [{ type: "text", text: "ran" }] }),
    });
    const restored = Agent.restore(saved, {
      streamFn: scriptedModel([{ text: "x" }, { text: "y" }]),
      tools: [quick, ...agent.state.tools.filter((tool) => tool.name !== "slow")],
      inspect: probe.inspect,
    });
    await restored.waitForIdle();
    expect(restored.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    const failing = instrumentedAgent(probe, [{ toolCalls: [{ name: "slow", arguments: {} }] }]).agent;
    const running = when(failing, "tool_execution_start");
    const failed = failing.prompt("go");
    await running;
    failing.fail(new Error("hook broke"));
    await failed;
    expect(failing.state.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "hook broke" });
    expect(probe.calledDuringTransition).toEqual([]);
    expect(probe.transitionsChecked).toBeGreaterThan(10);
  });
});
