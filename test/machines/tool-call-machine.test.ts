/**
 * `toolCallMachine` on its own: provided with actors the test drives (`toolCallMachine.provide(…)`),
 * invoked by a small parent machine that records what the call sends it, driven with `createActor` and
 * xstate's `waitFor`. Each test follows one road of a call (preflight, approval, the client, execution,
 * a child agent, the after hook, a restore's RESUME and REANNOUNCE) and checks the events the agent
 * receives, the input each step gets and the outcome the call settles with.
 */
import { describe, expect, it } from "vitest";
import {
  type ActorRefFrom,
  type AnyEventObject,
  createActor,
  fromCallback,
  fromPromise,
  setup,
  waitFor,
} from "xstate";
import { clientAnswerOutcome, deniedOutcome } from "../../src/loop/tool-outcome.js";
import type { ToolCallOutcome } from "../../src/machines/agent/agent.context.js";
import type { SubAgentStart, ToolCallInput } from "../../src/machines/tool-call/tool-call.context.js";
import type { ToolValidatedEvent } from "../../src/machines/tool-call/tool-call.events.js";
import { toolCallMachine } from "../../src/machines/tool-call/tool-call.machine.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { ToolCall } from "../../src/types/messages.js";
import { assistant } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

const toolCall: ToolCall = { type: "toolCall", id: "t1", name: "work", arguments: { raw: true } };
const callInput: ToolCallInput = {
  toolCall,
  assistantMessage: assistant([toolCall], "toolUse"),
  idempotencyKey: "agent-1:t1",
  agent: {
    agentId: "agent-1",
    model: testModel,
    path: [],
    systemPrompt: "",
    messages: [],
    toolNames: ["work"],
  },
};
const ARGS = { checked: true };

const outcomeOf = (text: string, isError = false): ToolCallOutcome => ({
  toolCall,
  result: { content: [{ type: "text", text }] },
  isError,
});

/** What VALIDATED carries: a plain tool with the arguments `ARGS`, with `flags` changed. */
function validated(flags: Partial<Omit<ToolValidatedEvent, "type">> = {}): ToolValidatedEvent {
  return {
    type: "VALIDATED",
    args: ARGS,
    needsApproval: false,
    beforeHook: false,
    afterHook: false,
    client: false,
    agentTool: false,
    ...flags,
  };
}

const childStart: SubAgentStart = {
  agentId: "child-1",
  place: { path: ["t1"], args: ARGS, toolName: "work" },
  parentToolCallId: "t1",
  model: testModel,
  systemPrompt: "Helps",
  thinkingLevel: "off",
  toolNames: [],
  settings: {},
  prompt: [user("help")],
};
const childEnd: Extract<AgentEvent, { type: "agent_end" }> = {
  type: "agent_end",
  messages: [],
  stopReason: "stop",
};

interface CallOptions {
  input?: Partial<ToolCallInput>;
  /** What the before hook decides. */
  before?: { outcome: ToolCallOutcome | undefined; needsApproval: boolean };
}

/** One call, invoked as `t1` by a parent that records every event the call sends it. */
function startCall(options: CallOptions = {}) {
  const seen = {
    toParent: [] as AnyEventObject[],
    validations: 0,
    /** Each start of an invoked step: its name and input. */
    started: [] as { step: string; input: unknown }[],
    /** What the child agent received. */
    toChild: [] as AnyEventObject[],
    execution: undefined as undefined | ((event: AnyEventObject) => void),
    preparation: undefined as undefined | ((event: AnyEventObject) => void),
  };
  const logic = toolCallMachine.provide({
    actions: {
      validate: () => {
        seen.validations += 1;
      },
    },
    actors: {
      beforeToolCall: fromPromise(async ({ input }) => {
        seen.started.push({ step: "beforeToolCall", input });
        return options.before ?? { outcome: undefined, needsApproval: false };
      }),
      executeTool: fromCallback(({ input, sendBack }) => {
        seen.started.push({ step: "executeTool", input });
        seen.execution = sendBack;
      }),
      afterToolCall: fromPromise(async ({ input }) => {
        seen.started.push({ step: "afterToolCall", input });
        return outcomeOf(`after: ${(input.outcome.result.content[0] as { text: string }).text}`);
      }),
      prepareSubAgent: fromCallback(({ input, sendBack }) => {
        seen.started.push({ step: "prepareSubAgent", input });
        seen.preparation = sendBack;
      }),
      subAgent: fromCallback(({ input, receive }) => {
        seen.started.push({ step: "subAgent", input });
        receive((event) => seen.toChild.push(event));
      }),
      collectSubAgent: fromPromise(async ({ input }) => {
        seen.started.push({ step: "collectSubAgent", input });
        return outcomeOf("collected");
      }),
    },
  });
  const parent = createActor(
    setup({ actors: { call: logic } }).createMachine({
      invoke: { id: "t1", src: "call", input: { ...callInput, ...options.input } },
      on: { "*": { actions: ({ event }) => seen.toParent.push(event) } },
    }),
  ).start();
  const call = parent.getSnapshot().children.t1 as ActorRefFrom<typeof logic>;
  const state = () => call.getSnapshot().value;
  const sent = (type: string) => seen.toParent.filter((event) => event.type === type);
  const startsOf = (step: string) =>
    seen.started.filter((start) => start.step === step).map((start) => start.input);
  const settled = async () => (await waitFor(call, (snapshot) => snapshot.status === "done")).output;
  return { call, seen, state, sent, startsOf, settled };
}

/** The input every step of the call gets (the call, its reply, the validated arguments, the key, the agent). */
const stepInput = { ...callInput, args: ARGS };

describe("toolCallMachine", () => {
  it("without its implementations, the call fails at once with an error that says how to build it", () => {
    const errors: unknown[] = [];
    const call = createActor(toolCallMachine, { input: callInput });
    call.subscribe({ error: (error) => errors.push(error) });
    call.start();
    expect(call.getSnapshot().status).toBe("error");
    expect(errors).toEqual([
      new Error(
        'agentchart: the tool call action "validate" is not provided: build the agent with createAgentMachine(options)',
      ),
    ]);
  });

  it("starts validating with nothing decided yet: no arguments, no approval, no client, no after hook", () => {
    const { call, seen, state } = startCall();
    expect(state()).toEqual({ preparing: "validating" });
    expect(seen.validations).toBe(1);
    expect(call.getSnapshot().context).toEqual({
      ...callInput,
      args: undefined,
      needsApproval: false,
      client: false,
      afterHook: false,
      outcome: undefined,
    });
  });

  it("a rejected call settles with the rejection as its outcome, and tells the agent nothing", async () => {
    const { call, sent, settled } = startCall();
    call.send({ type: "REJECTED", outcome: outcomeOf("no such tool", true) });
    expect(await settled()).toEqual(outcomeOf("no such tool", true));
    expect(sent("TOOL_PREPARED")).toEqual([]);
  });

  it("validated without a before hook: records what validation found and announces itself prepared", () => {
    const { call, state, sent } = startCall();
    call.send(validated({ afterHook: true }));
    expect(state()).toEqual({ preparing: "ready" });
    expect(call.getSnapshot().context).toMatchObject({
      args: ARGS,
      needsApproval: false,
      afterHook: true,
      client: false,
      agentTool: false,
    });
    expect(sent("TOOL_PREPARED")).toEqual([{ type: "TOOL_PREPARED", toolCallId: "t1" }]);
  });

  it("the before hook gets the validated call; its outcome settles the call", async () => {
    const { call, settled, startsOf, sent } = startCall({
      before: { outcome: outcomeOf("blocked", true), needsApproval: false },
    });
    call.send(validated({ beforeHook: true }));
    expect(await settled()).toEqual(outcomeOf("blocked", true));
    expect(startsOf("beforeToolCall")).toEqual([stepInput]);
    expect(sent("TOOL_PREPARED")).toEqual([]);
  });

  it("the before hook lets the call go on and decides its approval on the arguments it left", async () => {
    const needs = startCall({ before: { outcome: undefined, needsApproval: true } });
    needs.call.send(validated({ beforeHook: true }));
    await waitFor(needs.call, (snapshot) => snapshot.matches({ preparing: "ready" }));
    expect(needs.call.getSnapshot().context.needsApproval).toBe(true);
    expect(needs.sent("TOOL_PREPARED")).toHaveLength(1);

    const waived = startCall({ before: { outcome: undefined, needsApproval: false } });
    waived.call.send(validated({ beforeHook: true, needsApproval: true }));
    await waitFor(waived.call, (snapshot) => snapshot.matches({ preparing: "ready" }));
    expect(waived.call.getSnapshot().context.needsApproval).toBe(false);
  });

  it("EXECUTE: a plain call executes with the step input; its progress reaches the agent; its outcome settles it", async () => {
    const { call, seen, state, sent, startsOf, settled } = startCall();
    call.send(validated());
    call.send({ type: "EXECUTE" });
    expect(state()).toBe("executing");
    expect(startsOf("executeTool")).toEqual([stepInput]);
    seen.execution!({ type: "TOOL_PROGRESS", partialResult: { percent: 50 } });
    expect(sent("TOOL_UPDATE")).toEqual([
      { type: "TOOL_UPDATE", toolCallId: "t1", toolName: "work", args: ARGS, partialResult: { percent: 50 } },
    ]);
    seen.execution!({ type: "TOOL_EXECUTED", outcome: outcomeOf("done") });
    expect(await settled()).toEqual(outcomeOf("done"));
    expect(startsOf("afterToolCall")).toEqual([]);
  });

  it("the after hook gets the executed outcome and its result settles the call", async () => {
    const { call, seen, startsOf, settled } = startCall();
    call.send(validated({ afterHook: true }));
    call.send({ type: "EXECUTE" });
    seen.execution!({ type: "TOOL_EXECUTED", outcome: outcomeOf("done") });
    expect(await settled()).toEqual(outcomeOf("after: done"));
    expect(startsOf("afterToolCall")).toEqual([{ ...stepInput, outcome: outcomeOf("done") }]);
  });

  it("a call that needs approval asks the agent, and after APPROVE executes", () => {
    const { call, state, sent } = startCall();
    call.send(validated({ needsApproval: true }));
    call.send({ type: "EXECUTE" });
    expect(state()).toBe("awaitingApproval");
    expect(call.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(sent("TOOL_AWAITING_APPROVAL")).toEqual([
      { type: "TOOL_AWAITING_APPROVAL", toolCallId: "t1", toolName: "work", args: ARGS },
    ]);
    call.send({ type: "REANNOUNCE" });
    expect(sent("TOOL_AWAITING_APPROVAL")).toHaveLength(2);
    call.send({ type: "APPROVE" });
    expect(state()).toBe("executing");
  });

  it("a call approved before (a resumed call) never asks again", () => {
    const { call, state, sent } = startCall({ input: { approved: true } });
    call.send(validated({ needsApproval: true }));
    call.send({ type: "EXECUTE" });
    expect(state()).toBe("executing");
    expect(sent("TOOL_AWAITING_APPROVAL")).toEqual([]);
  });

  it("DENY settles the call with the denial and its reason", async () => {
    const { call, settled } = startCall();
    call.send(validated({ needsApproval: true }));
    call.send({ type: "EXECUTE" });
    call.send({ type: "DENY", reason: "not today" });
    expect(await settled()).toEqual(deniedOutcome(toolCall, "not today"));
  });

  it("a client tool waits for the client (after its approval, if it needs one); the answer is its outcome", async () => {
    const { call, state, sent, settled } = startCall();
    call.send(validated({ needsApproval: true, client: true }));
    call.send({ type: "EXECUTE" });
    call.send({ type: "APPROVE" });
    expect(state()).toBe("awaitingClient");
    expect(call.getSnapshot().hasTag("awaitingHuman")).toBe(true);
    expect(sent("TOOL_AWAITING_CLIENT")).toEqual([
      { type: "TOOL_AWAITING_CLIENT", toolCallId: "t1", toolName: "work", args: ARGS },
    ]);
    call.send({ type: "REANNOUNCE" });
    expect(sent("TOOL_AWAITING_CLIENT")).toHaveLength(2);
    const answer = { result: { content: [{ type: "text" as const, text: "blue" }] }, isError: true };
    call.send({ type: "ANSWER", ...answer });
    expect(await settled()).toEqual(clientAnswerOutcome(toolCall, answer));
  });

  it("a client tool without approval waits for the client at EXECUTE; with an after hook, the hook sees the answer", async () => {
    const { call, state, startsOf, settled } = startCall();
    call.send(validated({ client: true, afterHook: true }));
    call.send({ type: "EXECUTE" });
    expect(state()).toBe("awaitingClient");
    call.send({ type: "ANSWER", result: { content: [{ type: "text", text: "blue" }] } });
    expect(await settled()).toEqual(outcomeOf("after: blue"));
    expect(startsOf("afterToolCall")).toEqual([{ ...stepInput, outcome: outcomeOf("blue") }]);
  });

  it("an agent tool prepares its child, prompts it, forwards its events and collects its run", async () => {
    const { call, seen, state, sent, startsOf, settled } = startCall();
    call.send(validated({ agentTool: true }));
    call.send({ type: "EXECUTE" });
    expect(state()).toBe("startingAgent");
    expect(startsOf("prepareSubAgent")).toEqual([stepInput]);
    seen.preparation!({ type: "SUB_AGENT_READY", start: childStart });
    expect(state()).toBe("delegating");
    expect(startsOf("subAgent")).toEqual([childStart]);
    expect(seen.toChild).toEqual([{ type: "PROMPT", messages: childStart.prompt }]);
    const events: AgentEvent[] = [{ type: "agent_start" }];
    call.send({ type: "AGENT_EVENTS", events });
    expect(sent("SUB_AGENT_EVENTS")).toEqual([
      { type: "SUB_AGENT_EVENTS", toolCallId: "t1", toolName: "work", args: ARGS, events },
    ]);
    // A reservation of the child (or below it) climbs to the agent with this call's id; an answer goes down.
    const reservation = { path: ["g1"], before: "toolCall" as const, toolName: "ping" };
    call.send({ type: "RESERVE", reservation });
    expect(sent("SUB_AGENT_RESERVE")).toEqual([{ type: "SUB_AGENT_RESERVE", toolCallId: "t1", reservation }]);
    const answer = { type: "RESERVATION" as const, path: ["g1"], answer: { granted: true as const } };
    call.send(answer);
    expect(seen.toChild.at(-1)).toEqual(answer);
    call.send({ type: "ABORT" });
    expect(seen.toChild.at(-1)).toEqual({ type: "ABORT" });
    call.send({ type: "SUB_AGENT_ENDED", end: childEnd, errorMessage: "child failed" });
    expect(await settled()).toEqual(outcomeOf("collected"));
    expect(startsOf("collectSubAgent")).toEqual([
      { ...stepInput, end: childEnd, errorMessage: "child failed" },
    ]);
    expect(call.getSnapshot().context.agentEnd).toBeUndefined();
  });

  it("a child agent with a typed output is prompted with it; its collected result goes through the after hook", async () => {
    const output = {
      request: { name: "answer", schema: { type: "object" }, strict: false },
      wrapped: false,
      maxRepairs: 2,
      repairs: 0,
      accepted: false,
    };
    const { call, seen, startsOf, settled } = startCall();
    call.send(validated({ agentTool: true, needsApproval: true, afterHook: true }));
    call.send({ type: "EXECUTE" });
    call.send({ type: "APPROVE" });
    seen.preparation!({ type: "SUB_AGENT_READY", start: { ...childStart, output } });
    expect(seen.toChild).toEqual([{ type: "PROMPT", messages: childStart.prompt, output }]);
    call.send({ type: "SUB_AGENT_ENDED", end: childEnd, errorMessage: undefined });
    expect(await settled()).toEqual(outcomeOf("after: collected"));
    expect(startsOf("afterToolCall")).toEqual([{ ...stepInput, outcome: outcomeOf("collected") }]);
  });

  it("an agent tool refused at its start (the tree's limits) settles with the refusal", async () => {
    const { call, seen, settled, startsOf } = startCall();
    call.send(validated({ agentTool: true }));
    call.send({ type: "EXECUTE" });
    seen.preparation!({ type: "REJECTED", outcome: outcomeOf("too deep", true) });
    expect(await settled()).toEqual(outcomeOf("too deep", true));
    expect(startsOf("subAgent")).toEqual([]);
  });

  it("a child's events after it ended still reach the agent", async () => {
    const { call, seen, sent, settled } = startCall();
    call.send(validated({ agentTool: true }));
    call.send({ type: "EXECUTE" });
    seen.preparation!({ type: "SUB_AGENT_READY", start: childStart });
    call.send({ type: "SUB_AGENT_ENDED", end: childEnd, errorMessage: undefined });
    call.send({ type: "AGENT_EVENTS", events: [childEnd] });
    expect(sent("SUB_AGENT_EVENTS").map((event) => event.events)).toEqual([[childEnd]]);
    await settled();
  });

  it("RESUME re-enters a state whose step was not persisted: validation, execution, the child's start", () => {
    const { call, seen, state, startsOf } = startCall();
    call.send({ type: "RESUME" });
    expect(seen.validations).toBe(2);
    expect(state()).toEqual({ preparing: "validating" });
    call.send(validated({ agentTool: true }));
    call.send({ type: "EXECUTE" });
    call.send({ type: "RESUME" });
    expect(startsOf("prepareSubAgent")).toHaveLength(2);
    expect(state()).toBe("startingAgent");

    const plain = startCall();
    plain.call.send(validated());
    plain.call.send({ type: "EXECUTE" });
    plain.call.send({ type: "RESUME" });
    expect(plain.startsOf("executeTool")).toHaveLength(2);
    expect(plain.state()).toBe("executing");
  });

  it("RESUME re-enters the after hook and the collection of a child's run, which then settle once", async () => {
    const hooked = startCall();
    hooked.call.send(validated({ afterHook: true }));
    hooked.call.send({ type: "EXECUTE" });
    hooked.seen.execution!({ type: "TOOL_EXECUTED", outcome: outcomeOf("done") });
    hooked.call.send({ type: "RESUME" });
    expect(await hooked.settled()).toEqual(outcomeOf("after: done"));
    expect(hooked.startsOf("afterToolCall")).toHaveLength(2);

    const delegated = startCall();
    delegated.call.send(validated({ agentTool: true }));
    delegated.call.send({ type: "EXECUTE" });
    delegated.seen.preparation!({ type: "SUB_AGENT_READY", start: childStart });
    delegated.call.send({ type: "SUB_AGENT_ENDED", end: childEnd, errorMessage: undefined });
    delegated.call.send({ type: "RESUME" });
    expect(await delegated.settled()).toEqual(outcomeOf("collected"));
    expect(delegated.startsOf("collectSubAgent")).toEqual([
      { ...stepInput, end: childEnd, errorMessage: undefined },
      { ...stepInput, end: childEnd, errorMessage: undefined },
    ]);
  });
});
