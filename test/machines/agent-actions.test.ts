/**
 * The agent machine's actions on their own: each is a function of the context, the event and its params
 * that only enqueues (the machine wraps it in `enqueueActions`). A recording `enqueue` turns what an
 * action enqueues into a list of effects, in order, which each test compares with what the action must
 * do. Every context is deep-frozen.
 */
import { describe, expect, it } from "vitest";
import type { AnyActorRef } from "xstate";
import { openLedger } from "../../src/loop/budget-ledger.js";
import { restartWallClock } from "../../src/loop/budget-steps.js";
import * as steps from "../../src/loop/run-steps.js";
import { createToolBatch, withPhase } from "../../src/loop/tool-batch.js";
import * as actions from "../../src/machines/agent/agent.actions.js";
import type { AgentMachineContext, RunState } from "../../src/machines/agent/agent.context.js";
import type { AgentMachineEvent } from "../../src/machines/agent/agent.events.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { ToolCall } from "../../src/types/messages.js";
import { assistant, deepFreeze, idleContext } from "../support/loop-context.js";
import { testModel, user } from "../support/loop-harness.js";

/** What an action enqueued, one entry per call, in order (an assignment evaluated to its value). */
type Effect =
  | { assign: unknown }
  | { emit: AgentEvent }
  | { sendTo: unknown; event: unknown }
  | { sendParent: unknown }
  | { spawn: string; options: unknown }
  | { stop: string }
  | { raise: unknown; options: unknown }
  | { cancel: string }
  | { provided: actions.ProvidedAction };

const SELF = { id: "self" } as AnyActorRef;

/** Runs `action` with a recording `enqueue`; returns what it enqueued. */
function effectsOf<TParams>(
  action: (args: actions.ActionArgs, params: TParams) => void,
  context: AgentMachineContext,
  event: AgentMachineEvent | { type: "NONE" } = { type: "NONE" },
  params?: TParams,
): Effect[] {
  const effects: Effect[] = [];
  const enqueue = Object.assign((provided: actions.ProvidedAction) => void effects.push({ provided }), {
    assign: (assignment: unknown) =>
      void effects.push({ assign: typeof assignment === "function" ? assignment() : assignment }),
    emit: (event: AgentEvent) => void effects.push({ emit: event }),
    sendTo: (target: unknown, event: unknown) => void effects.push({ sendTo: target, event }),
    sendParent: (event: unknown) => void effects.push({ sendParent: event }),
    spawnChild: (src: string, options: unknown) => void effects.push({ spawn: src, options }),
    stopChild: (id: string) => void effects.push({ stop: id }),
    raise: (event: unknown, options: unknown) => void effects.push({ raise: event, options }),
    cancel: (id: string) => void effects.push({ cancel: id }),
  }) as actions.Enqueue;
  action({ context, event: event as AgentMachineEvent, enqueue, self: SELF }, params as TParams);
  return effects;
}

/** A frozen context in a run (begun from `patch`), with `run` applied. */
function inRun(run: Partial<RunState> = {}, patch: Partial<AgentMachineContext> = {}): AgentMachineContext {
  const begun = steps.beginRun(idleContext(patch), [], false).context;
  return deepFreeze({ ...begun, run: { ...begun.run!, ...run } });
}

const call = (id: string): ToolCall => ({ type: "toolCall", id, name: "work", arguments: {} });
const reply = assistant([call("a"), call("b")], "toolUse");
const batchOf = (a: "pending" | "executing" | "settled", b: "pending" | "executing" | "settled") =>
  withPhase(withPhase(createToolBatch(reply, false), "a", a), "b", b);

describe("the agent machine's actions", () => {
  it("emitReplyEvents emits each event; a sub-agent also sends them up to its call, after them", () => {
    const events: AgentEvent[] = [{ type: "agent_start" }, { type: "turn_start" }];
    expect(effectsOf(actions.emitReplyEvents, idleContext(), undefined, events)).toEqual([
      { emit: events[0] },
      { emit: events[1] },
    ]);
    expect(
      effectsOf(actions.emitReplyEvents, idleContext({ parentToolCallId: "c1" }), undefined, events),
    ).toEqual([{ emit: events[0] }, { emit: events[1] }, { sendParent: { type: "AGENT_EVENTS", events } }]);
    expect(
      effectsOf(actions.emitReplyEvents, idleContext({ parentToolCallId: "c1" }), undefined, []),
    ).toEqual([]);
  });

  it("an agent whose parent wants some event types sends those first, each before its emit", () => {
    const context = idleContext({ agentId: "a1", parentEvents: ["turn_start"] });
    const events: AgentEvent[] = [{ type: "agent_start" }, { type: "turn_start" }];
    expect(effectsOf(actions.emitReplyEvents, context, undefined, events)).toEqual([
      { emit: events[0] },
      { sendParent: { type: "agent.turn_start", agentId: "a1", event: events[1] } },
      { emit: events[1] },
    ]);
  });

  it("emitToolUpdate emits the call's progress as tool_execution_update", () => {
    const update = {
      type: "TOOL_UPDATE",
      toolCallId: "a",
      toolName: "work",
      args: { x: 1 },
      partialResult: 5,
    };
    expect(effectsOf(actions.emitToolUpdate, idleContext(), undefined, update as never)).toEqual([
      {
        emit: {
          type: "tool_execution_update",
          toolCallId: "a",
          toolName: "work",
          args: { x: 1 },
          partialResult: 5,
        },
      },
    ]);
  });

  it("announceWaitingCall marks the call waiting and emits the request of its kind", () => {
    const context = inRun({ batch: batchOf("executing", "pending") });
    for (const [type, emitted] of [
      ["TOOL_AWAITING_APPROVAL", "tool_approval_request"],
      ["TOOL_AWAITING_CLIENT", "tool_client_request"],
    ] as const) {
      const request = { type, toolCallId: "a", toolName: "work", args: { x: 1 } };
      expect(effectsOf(actions.announceWaitingCall, context, undefined, request)).toEqual([
        { assign: steps.markWaiting(context, "a", true) },
        { emit: { type: emitted, toolCallId: "a", toolName: "work", args: { x: 1 } } },
      ]);
    }
  });

  it("forwardToCall: a decision or an answer marks the call no longer waiting and goes to it", () => {
    const context = inRun({ batch: { ...batchOf("executing", "pending"), waiting: ["a"] } });
    const unmarked = { assign: steps.markWaiting(context, "a", false) };
    expect(effectsOf(actions.forwardToCall, context, { type: "APPROVE_TOOL", toolCallId: "a" })).toEqual([
      unmarked,
      { sendTo: "a", event: { type: "APPROVE" } },
    ]);
    expect(
      effectsOf(actions.forwardToCall, context, { type: "DENY_TOOL", toolCallId: "a", reason: "no" }),
    ).toEqual([unmarked, { sendTo: "a", event: { type: "DENY", reason: "no" } }]);
    const result = { content: [{ type: "text" as const, text: "blue" }] };
    expect(
      effectsOf(actions.forwardToCall, context, {
        type: "ANSWER_TOOL",
        toolCallId: "a",
        result,
        isError: true,
      }),
    ).toEqual([unmarked, { sendTo: "a", event: { type: "ANSWER", result, isError: true } }]);
    expect(effectsOf(actions.forwardToCall, context, { type: "ABORT" })).toEqual([]);
  });

  it("abortCalls tells every running call the run ends; endRunNext ends it in the next macrostep", () => {
    expect(effectsOf(actions.abortCalls, inRun({ batch: batchOf("executing", "pending") }))).toEqual([
      { sendTo: "a", event: { type: "ABORT" } },
    ]);
    expect(effectsOf(actions.abortCalls, inRun({ batch: batchOf("settled", "executing") }))).toEqual([
      { sendTo: "b", event: { type: "ABORT" } },
    ]);
    expect(effectsOf(actions.abortCalls, inRun())).toEqual([]);
    expect(effectsOf(actions.abortCalls, idleContext())).toEqual([]);
    expect(effectsOf(actions.endRunNext, inRun(), undefined, undefined)).toEqual([
      { sendTo: SELF, event: { type: "RUN_ABORTED" } },
    ]);
    expect(effectsOf(actions.endRunNext, inRun(), undefined, "hook threw")).toEqual([
      { sendTo: SELF, event: { type: "RUN_FAILED", error: "hook threw" } },
    ]);
  });

  it("requestInjectionIfMore asks for the next injection only while the inbox holds a message", () => {
    expect(effectsOf(actions.requestInjectionIfMore, inRun({ inbox: [{ message: user("x") }] }))).toEqual([
      { sendTo: SELF, event: { type: "INJECT" } },
    ]);
    expect(effectsOf(actions.requestInjectionIfMore, inRun())).toEqual([]);
    expect(effectsOf(actions.requestInjectionIfMore, idleContext())).toEqual([]);
  });

  it("startDecision and stopDecision: the turn callbacks' actor, or without callbacks a self-sent DECIDED", () => {
    const withCallbacks = inRun({}, { hasTurnCallbacks: true });
    expect(effectsOf(actions.startDecision, withCallbacks)).toEqual([
      { spawn: "turnCallbacks", options: { id: "turnCallbacks", input: { context: withCallbacks } } },
    ]);
    expect(effectsOf(actions.stopDecision, withCallbacks)).toEqual([{ stop: "turnCallbacks" }]);
    const without = inRun({}, { hasTurnCallbacks: false });
    expect(effectsOf(actions.startDecision, without)).toEqual([
      {
        sendTo: SELF,
        event: { type: "DECIDED", decision: { stop: false, external: { steering: [], followUp: [] } } },
      },
    ]);
    expect(effectsOf(actions.stopDecision, without)).toEqual([]);
  });

  it("keepLateSteering keeps late messages in the run's inbox, or gives them back to their source when idle", () => {
    const late = [user("late")];
    const running = inRun();
    expect(effectsOf(actions.keepLateSteering, running, undefined, late)).toEqual([
      { assign: steps.keepInInbox(running, late) },
    ]);
    expect(effectsOf(actions.keepLateSteering, idleContext(), undefined, late)).toEqual([
      { provided: { type: "returnQueuedMessages", params: [{ queue: "steering", messages: late }] } },
    ]);
    expect(effectsOf(actions.keepLateSteering, running, undefined, [])).toEqual([]);
  });

  it("inputPassed: parallel input guardrails still run beside the model call; blocking ones are done", () => {
    const blocking = inRun(
      { inputCheck: "blocking" },
      { guardrails: { input: [{ name: "g", mode: "blocking" }], output: [] } },
    );
    expect(effectsOf(actions.inputPassed, blocking)).toEqual([
      { assign: { ...blocking, run: { ...blocking.run, inputCheck: undefined } } },
    ]);
    const both = inRun(
      { inputCheck: "blocking" },
      {
        guardrails: {
          input: [
            { name: "g", mode: "blocking" },
            { name: "p", mode: "parallel" },
          ],
          output: [],
        },
      },
    );
    expect(effectsOf(actions.inputPassed, both)).toEqual([
      { assign: { ...both, run: { ...both.run, inputCheck: "parallel" } } },
    ]);
  });

  it("holdReply keeps the reply and its events; dropHeldReply drops it only when one is held", () => {
    const message = assistant([{ type: "text", text: "hi" }], "stop");
    const running = inRun();
    const events: AgentEvent[] = [{ type: "turn_start" }];
    const streamed = { message, started: true, sequential: true, held: true };
    expect(effectsOf(actions.holdReply, running, undefined, { ...streamed, heldEvents: events })).toEqual([
      { assign: { ...running, run: { ...running.run, heldReply: { message, sequential: true, events } } } },
    ]);
    expect(effectsOf(actions.holdReply, running, undefined, streamed)).toEqual([
      {
        assign: { ...running, run: { ...running.run, heldReply: { message, sequential: true, events: [] } } },
      },
    ]);
    const holding = inRun({ heldReply: { message, sequential: false, events } });
    expect(effectsOf(actions.releaseHeldEvents, holding)).toEqual([{ emit: events[0] }]);
    expect(effectsOf(actions.releaseHeldEvents, running)).toEqual([]);
    expect(effectsOf(actions.dropHeldReply, holding)).toEqual([
      { assign: { ...holding, run: { ...holding.run, heldReply: undefined } } },
    ]);
    expect(effectsOf(actions.dropHeldReply, running)).toEqual([]);
  });

  it("announceResume emits agent_resume, and restarts the wall clock of a run with a budget", () => {
    const plain = inRun();
    expect(effectsOf(actions.announceResume, plain, undefined, "streaming")).toEqual([
      { emit: { type: "agent_resume", from: "streaming" } },
    ]);
    const budgeted = inRun({ ledger: openLedger({ maxTurns: 3 }, Date.now()) });
    const effects = effectsOf(actions.announceResume, budgeted, undefined, "executingTools");
    expect(effects).toHaveLength(2);
    expect((effects[0] as { assign: AgentMachineContext }).assign.run!.ledger).toEqual({
      ...restartWallClock(budgeted).run!.ledger,
      clockedAt: expect.any(Number),
    });
    expect(effects[1]).toEqual({ emit: { type: "agent_resume", from: "executingTools" } });
  });

  it("the wall timer: cancelled, and armed again only for a stop limit on wall time", () => {
    expect(effectsOf(actions.disarmWallTimer, inRun())).toEqual([{ cancel: "wallTimer" }]);
    expect(effectsOf(actions.armWallTimer, inRun())).toEqual([{ cancel: "wallTimer" }]);
    const timed = inRun({ ledger: openLedger({ maxWallMs: 60_000, onExceeded: "stop" }, Date.now()) });
    const effects = effectsOf(actions.armWallTimer, timed);
    expect(effects).toEqual([
      { cancel: "wallTimer" },
      { raise: { type: "WALL_TIME_UP" }, options: { id: "wallTimer", delay: expect.any(Number) } },
    ]);
    const delay = (effects[1] as { options: { delay: number } }).options.delay;
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(60_000);
  });

  it("reserveModelCall changes nothing without a budget; raiseBudget only on RAISE_BUDGET", () => {
    expect(effectsOf(actions.reserveModelCall, inRun())).toEqual([]);
    const budgeted = inRun({ ledger: openLedger({ maxTurns: 3 }, Date.now()) });
    expect(effectsOf(actions.reserveModelCall, budgeted).length).toBeGreaterThan(0);
    expect(effectsOf(actions.raiseBudget, budgeted, { type: "CONTINUE_ONCE" })).toEqual([]);
    expect(
      effectsOf(actions.raiseBudget, budgeted, { type: "RAISE_BUDGET", limits: { maxTurns: 5 } }),
    ).toHaveLength(1);
  });

  it("advanceToolBatch spawns the next call with its input (key, calling agent, approval), or lets prepared calls execute", () => {
    const context = inRun(
      { batch: batchOf("pending", "pending") },
      { agentId: "a1", systemPrompt: "Be brief.", place: { path: ["p1"], args: {}, toolName: "helper" } },
    );
    const effects = effectsOf(actions.advanceToolBatch, context);
    const advanced = steps.advanceToolBatch(context);
    expect(effects[0]).toEqual({ assign: advanced.context });
    expect(effects.at(-1)).toEqual({
      spawn: "toolCall",
      options: {
        id: "a",
        input: {
          toolCall: call("a"),
          assistantMessage: reply,
          idempotencyKey: "a1:a",
          agent: {
            systemPrompt: "Be brief.",
            messages: advanced.context.messages,
            toolNames: [],
            agentId: "a1",
            model: testModel,
            path: ["p1"],
          },
        },
      },
    });
    const approved = inRun({ batch: { ...batchOf("pending", "pending"), approved: ["a"] } });
    const spawned = effectsOf(actions.advanceToolBatch, approved).at(-1) as { options: { input: unknown } };
    expect(spawned.options.input).toMatchObject({ approved: true, agent: { path: [] } });
    const prepared = inRun({ batch: withPhase(batchOf("pending", "pending"), ["a", "b"], "prepared") });
    expect(effectsOf(actions.advanceToolBatch, prepared).filter((effect) => "sendTo" in effect)).toEqual([
      { sendTo: "a", event: { type: "EXECUTE" } },
      { sendTo: "b", event: { type: "EXECUTE" } },
    ]);
    expect(effectsOf(actions.advanceToolBatch, inRun({ batch: batchOf("executing", "executing") }))).toEqual([
      { assign: inRun({ batch: batchOf("executing", "executing") }) },
    ]);
  });

  it("a run with a budget (or a sub-agent sharing its ancestors' ledgers) spawns calls whose agent shares it", () => {
    const budgeted = inRun({ batch: batchOf("pending", "pending"), ledger: openLedger({}, Date.now()) });
    const spawned = effectsOf(actions.advanceToolBatch, budgeted).at(-1) as { options: { input: unknown } };
    expect(spawned.options.input).toMatchObject({ agent: { sharesLedger: true } });
    const plain = effectsOf(actions.advanceToolBatch, inRun({ batch: batchOf("pending", "pending") })).at(
      -1,
    ) as { options: { input: { agent: object } } };
    expect(plain.options.input.agent).not.toHaveProperty("sharesLedger");
  });

  it("the reservations: a sharing sub-agent's call climbs as RESERVE; answers go down by path", () => {
    // A tool call of a sub-agent that shares its ancestors' ledgers: reserved above before its actor.
    const sharing = inRun({ batch: batchOf("pending", "pending") }, { sharesLedger: true });
    const reserving = effectsOf(actions.advanceToolBatch, sharing);
    expect(reserving.at(-1)).toEqual({
      sendParent: { type: "RESERVE", reservation: { path: [], before: "toolCall", toolName: "work" } },
    });
    expect(reserving.some((effect) => "spawn" in effect)).toBe(false);
    const waiting = (reserving[0] as { assign: AgentMachineContext }).assign;
    expect(waiting.run!.batch!.reserving).toBe("a");
    // Granted: the call's actor is spawned.
    const granted = effectsOf(actions.reservedToolCall, deepFreeze(waiting), undefined, { granted: true });
    expect(granted.at(-1)).toMatchObject({ spawn: "toolCall", options: { id: "a" } });
    // This sub-agent's model call, with its request's estimate.
    const asked = effectsOf(actions.requestModelCallReservation, sharing);
    expect(asked).toEqual([
      {
        sendParent: {
          type: "RESERVE",
          reservation: { path: [], before: "modelCall", estimate: expect.objectContaining({ costUsd: 0 }) },
        },
      },
    ]);
    // A sub-agent's call at an agent without a budget: granted down the path it came from…
    const top = effectsOf(actions.admitSubAgentCall, inRun(), undefined, {
      type: "SUB_AGENT_RESERVE",
      toolCallId: "c1",
      reservation: { path: ["g1"], before: "toolCall", toolName: "work" },
    });
    expect(top).toEqual([
      { assign: inRun() },
      { sendTo: "c1", event: { type: "RESERVATION", path: ["g1"], answer: { granted: true } } },
    ]);
    // …or, at an agent that shares its own ancestors' ledgers, sent on up with its path.
    const middle = inRun({}, { sharesLedger: true });
    expect(
      effectsOf(actions.admitSubAgentCall, middle, undefined, {
        type: "SUB_AGENT_RESERVE",
        toolCallId: "c1",
        reservation: { path: [], before: "modelCall" },
      }),
    ).toEqual([
      { assign: middle },
      { sendParent: { type: "RESERVE", reservation: { path: ["c1"], before: "modelCall" } } },
    ]);
    // An answer for an agent below goes to the call that runs the next one down; one for this agent stays.
    const answer = { granted: true } as const;
    expect(
      effectsOf(actions.passReservationDown, inRun(), undefined, {
        type: "RESERVATION",
        path: ["c1", "g1"],
        answer,
      }),
    ).toEqual([{ sendTo: "c1", event: { type: "RESERVATION", path: ["g1"], answer } }]);
    expect(
      effectsOf(actions.passReservationDown, inRun(), undefined, { type: "RESERVATION", path: [], answer }),
    ).toEqual([]);
  });

  it("after a raise the held reservations are answered; an ancestor's refusal stops this agent's run", () => {
    const ledger = {
      ...openLedger({ maxModelCalls: 5 }, Date.now() + 1e12),
      held: [{ path: ["c1"], before: "modelCall" as const }],
    };
    const raised = effectsOf(actions.admitHeldReservations, inRun({ ledger }));
    expect(raised.at(-1)).toEqual({
      sendTo: "c1",
      event: { type: "RESERVATION", path: [], answer: { granted: true } },
    });
    expect(effectsOf(actions.admitHeldReservations, inRun())).toEqual([{ assign: inRun() }]);
    const exceeded = {
      budget: "maxModelCalls" as const,
      limit: 1,
      used: 1,
      action: "stop" as const,
      before: "modelCall" as const,
    };
    const open = inRun({ turnOpen: true });
    const stopped = effectsOf(actions.stopAtAncestorBudget, open, undefined, { granted: false, exceeded });
    expect((stopped[0] as { assign: AgentMachineContext }).assign.run!.stopReason).toBe("budget");
    expect(
      stopped
        .filter((effect) => "emit" in effect)
        .map((effect) => (effect as { emit: AgentEvent }).emit.type),
    ).toEqual(["message_start", "message_end", "turn_end"]);
    expect(effectsOf(actions.stopAtAncestorBudget, open, undefined, { granted: true })).toEqual([]);
  });

  it("forwardSubAgentEvents emits a child's events with its path; its own replies and tool runs also as the call's progress", () => {
    const start: AgentEvent = { type: "tool_execution_start", toolCallId: "x", toolName: "read", args: {} };
    const deeper: AgentEvent = { ...start, agentPath: ["c2"] };
    const from = {
      type: "SUB_AGENT_EVENTS" as const,
      toolCallId: "c1",
      toolName: "helper",
      args: { q: 1 },
      events: [start, deeper, { type: "turn_start" } as AgentEvent],
    };
    expect(effectsOf(actions.forwardSubAgentEvents, inRun(), undefined, from)).toEqual([
      { emit: { ...start, agentPath: ["c1"] } },
      {
        emit: {
          type: "tool_execution_update",
          toolCallId: "c1",
          toolName: "helper",
          args: { q: 1 },
          partialResult: { agentEvent: { ...start, agentPath: ["c1"] } },
        },
      },
      { emit: { ...start, agentPath: ["c1", "c2"] } },
      { emit: { type: "turn_start", agentPath: ["c1"] } },
    ]);
  });

  it("resumeToolCalls: interrupted calls are answered, others re-enter their state or ask again", () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const all = createToolBatch(assistant(ids.map(call), "toolUse"), false);
    const batch = withPhase(
      withPhase(withPhase(all, ["a", "b", "c", "f"], "executing"), "d", "settled"),
      "e",
      "pending",
    );
    const context = inRun({ batch });
    // d has its result and e never started: neither has an actor, whatever the plan names them.
    const plan = { type: "RESUME" as const, interrupted: ["a", "d", "e"], reenter: ["b"], waiting: ["c"] };
    const effects = effectsOf(actions.resumeToolCalls, context, plan);
    expect(effects[0]).toEqual({ stop: "a" });
    expect(effects.filter((effect) => "sendTo" in effect || "stop" in effect)).toEqual([
      { stop: "a" },
      { sendTo: "b", event: { type: "RESUME" } },
      { sendTo: "c", event: { type: "REANNOUNCE" } },
    ]);
    const answered = (effects[1] as { assign: AgentMachineContext }).assign;
    expect(answered.run!.batch!.phases).toMatchObject({
      a: "settled",
      b: "executing",
      e: "pending",
      f: "executing",
    });
    expect(effectsOf(actions.resumeToolCalls, context, { type: "ABORT" })).toEqual([]);
    expect(effectsOf(actions.resumeToolCalls, inRun(), plan)).toEqual([]);
    expect(effectsOf(actions.resumeToolCalls, idleContext(), plan)).toEqual([]);
  });

  it("endRun: a sub-agent tells its call how its run ended before the run's own events", () => {
    const context = inRun({}, { parentToolCallId: "c1" });
    const ended = steps.endRun(context);
    const effects = effectsOf(actions.endRun, context);
    expect(effects[0]).toEqual({
      sendParent: {
        type: "SUB_AGENT_ENDED",
        end: ended.events.at(-1),
        errorMessage: ended.context.errorMessage,
      },
    });
    expect(effects[1]).toEqual({ assign: ended.context });
    expect(effectsOf(actions.endRun, inRun()).some((effect) => "sendParent" in effect)).toBe(false);
  });

  it("recordToolOutcome stops the call's actor, and with steering between tools polls it while calls remain", () => {
    const outcome = { toolCall: call("a"), result: { content: [] }, isError: false };
    const between = inRun(
      { batch: batchOf("executing", "executing") },
      { settings: { ...idleContext().settings, steering: "betweenTools" } },
    );
    const effects = effectsOf(actions.recordToolOutcome, between, undefined, outcome);
    expect(effects[0]).toEqual({ stop: "a" });
    // The result message's timestamp is the clock's: the poll's assignment is checked by its flag.
    expect(effects.at(-1)).toEqual({ provided: { type: "pollSteering" } });
    const polling = (effects.at(-2) as { assign: AgentMachineContext }).assign;
    expect(polling.run!.batch).toMatchObject({
      pollingSteering: true,
      phases: { a: "settled", b: "executing" },
    });
    const after = inRun({ batch: batchOf("executing", "executing") });
    expect(
      effectsOf(actions.recordToolOutcome, after, undefined, outcome).some((effect) => "provided" in effect),
    ).toBe(false);
  });

  it("steeringPolled: no steering lets the batch go on; steering skips the remaining calls", () => {
    const context = inRun({ batch: { ...batchOf("settled", "pending"), pollingSteering: true } });
    expect(effectsOf(actions.steeringPolled, context, undefined, [])).toEqual([
      { assign: steps.setSteeringPoll(context, false) },
    ]);
    const effects = effectsOf(actions.steeringPolled, context, undefined, [user("stop that")]);
    const skipping = (effects[0] as { assign: AgentMachineContext }).assign;
    expect(skipping.run!.batch!.phases).toEqual({ a: "settled", b: "settled" });
    expect(skipping.run!.inbox).toEqual([
      { message: expect.objectContaining({ content: "stop that" }), from: "steering", external: true },
    ]);
    const [mine, later] = [user("mine"), user("later")];
    const own = inRun({ batch: batchOf("settled", "pending") }, { steering: [mine, later] });
    const fromOwn = effectsOf(actions.steeringPolled, own, undefined, []);
    const assigned = (fromOwn[0] as { assign: AgentMachineContext }).assign;
    expect(assigned.steering).toEqual([later]);
    expect(assigned.run!.inbox).toEqual([{ message: mine, from: "steering" }]);
  });

  it("beginRun: a prompt, a resume of calls or a continuation starts the run with its output and budget", () => {
    const output = {
      request: { name: "answer", schema: { type: "object" }, strict: false },
      wrapped: false,
      maxRepairs: 1,
      repairs: 0,
      accepted: false,
    };
    const budget = { maxTurns: 4 };
    const context = idleContext({ messages: [user("hi")] });
    for (const event of [
      { type: "CONTINUE", output, budget },
      { type: "PROMPT", messages: [user("more")], output, budget },
    ] satisfies AgentMachineEvent[]) {
      const begun = (effectsOf(actions.beginRun, context, event)[0] as { assign: AgentMachineContext })
        .assign;
      expect(begun.run!.output, event.type).toEqual(output);
      expect(begun.run!.ledger!.budget, event.type).toEqual(budget);
    }
    const plain = (
      effectsOf(actions.beginRun, context, { type: "CONTINUE" })[0] as { assign: AgentMachineContext }
    ).assign;
    expect(plain.run).toMatchObject({ turns: 0, inbox: [] });
    expect(plain.run).not.toHaveProperty("output");
    expect(plain.run!.ledger).toBeUndefined();
    expect(effectsOf(actions.beginRun, context, { type: "RESET" })).toEqual([]);
  });

  it("applyPlan assigns the decision's plan, on DECIDED only", () => {
    const context = inRun();
    const decision = { stop: true, external: { steering: [], followUp: [] } };
    expect(effectsOf(actions.applyPlan, context, { type: "DECIDED", decision })).toEqual([
      { assign: context },
    ]);
    expect(effectsOf(actions.applyPlan, context, { type: "INJECT" })).toEqual([]);
  });

  it("markFailure records the failure text in the run; applyHandoff enqueues nothing without a handoff", () => {
    const context = inRun();
    expect(effectsOf(actions.markFailure, context, undefined, "hook threw")).toEqual([
      { assign: { ...context, run: { ...context.run, failure: "hook threw" } } },
    ]);
    expect(effectsOf(actions.applyHandoff, inRun({ batch: batchOf("settled", "settled") }))).toEqual([]);
  });

  it("an agent without a run: a child's late events are still emitted; nothing held, reserved or resumed", () => {
    const idle = idleContext();
    const start: AgentEvent = { type: "agent_start" };
    const late = {
      type: "SUB_AGENT_EVENTS" as const,
      toolCallId: "c1",
      toolName: "helper",
      args: {},
      events: [start],
    };
    expect(effectsOf(actions.forwardSubAgentEvents, idle, undefined, late)).toEqual([
      { emit: { ...start, agentPath: ["c1"] } },
    ]);
    expect(effectsOf(actions.releaseHeldEvents, idle)).toEqual([]);
    expect(effectsOf(actions.dropHeldReply, idle)).toEqual([]);
    expect(effectsOf(actions.reserveModelCall, idle)).toEqual([]);
    expect(effectsOf(actions.announceResume, idle, undefined, "preparingTurn")).toEqual([
      { emit: { type: "agent_resume", from: "preparingTurn" } },
    ]);
  });

  it("the queue and setting commands assign only for their own event", () => {
    const context = idleContext({ steering: [user("s")], followUp: [user("f")] });
    expect(effectsOf(actions.clearQueues, context, { type: "CLEAR_QUEUES", queue: "steering" })).toEqual([
      { assign: { steering: [] } },
    ]);
    expect(effectsOf(actions.clearQueues, context, { type: "CLEAR_QUEUES" })).toEqual([
      { assign: { steering: [], followUp: [] } },
    ]);
    expect(effectsOf(actions.clearQueues, context, { type: "RESET" })).toEqual([]);
    const message = user("m");
    expect(effectsOf(actions.enqueueMessage, context, { type: "STEER", message })).toEqual([
      { assign: steps.enqueue(context, "steering", message) },
    ]);
    expect(effectsOf(actions.enqueueMessage, context, { type: "FOLLOW_UP", message })).toEqual([
      { assign: steps.enqueue(context, "followUp", message) },
    ]);
    expect(effectsOf(actions.enqueueMessage, context, { type: "RESET" })).toEqual([]);
    const setters: [(args: actions.ActionArgs) => void, AgentMachineEvent, unknown][] = [
      [actions.setModel, { type: "SET_MODEL", model: testModel }, { model: testModel }],
      [
        actions.setThinkingLevel,
        { type: "SET_THINKING_LEVEL", thinkingLevel: "high" },
        { thinkingLevel: "high" },
      ],
      [
        actions.setSystemPrompt,
        { type: "SET_SYSTEM_PROMPT", systemPrompt: "Be brief." },
        { systemPrompt: "Be brief." },
      ],
      [actions.setTools, { type: "SET_TOOLS", toolNames: ["read"] }, { toolNames: ["read"] }],
      [
        actions.setStreamOptions,
        { type: "SET_STREAM_OPTIONS", streamOptions: { maxTokens: 9 } },
        { streamOptions: { maxTokens: 9 } },
      ],
      [actions.setMessages, { type: "SET_MESSAGES", messages: [message] }, { messages: [message] }],
    ];
    for (const [setter, event, assigned] of setters) {
      expect(effectsOf(setter, context, event), event.type).toEqual([{ assign: assigned }]);
      expect(effectsOf(setter, context, { type: "RESET" }), event.type).toEqual([]);
    }
    expect(effectsOf(actions.reset, context, { type: "RESET" })).toEqual([
      { assign: { messages: [], steering: [], followUp: [], errorMessage: undefined } },
    ]);
  });
});
