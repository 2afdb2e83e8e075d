import type { InspectionEvent } from "xstate";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createAgentLoopActor } from "../../src/agent/agent-loop.js";
import { type AgentActor, persistAgent } from "../../src/agent/agent-snapshot.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentLoopConfig, BeforeToolCallResult, SteeringPolicy } from "../../src/types/loop.js";
import { type AgentMessage, type AssistantMessage, emptyUsage } from "../../src/types/messages.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import type { AgentTool, ToolResult } from "../../src/types/tool.js";
import { deferred, emptyContext, testModel, user } from "../support/loop-harness.js";

/**
 * The real system the models drive: `createAgentLoopActor` with the real machines and actors, a
 * scripted model whose replies the test releases, a steering poll between turns that the test answers,
 * and tools / tool hooks that finish when the test resolves their deferred promise. Nothing waits on
 * time: `settle()` lets every pending promise run (no timers are involved anywhere).
 */

export type Deferred<T> = ReturnType<typeof deferred<T>>;
/** A piece of work the test completes, with the AbortSignal the loop gave it. */
export interface Held<T> {
  gate: Deferred<T>;
  signal?: AbortSignal;
  released: boolean;
  /** Still running when the run ended: released by `finish()` only. */
  late?: boolean;
}

/** What the test answers a model call with: a scripted reply, raw events, or a thrown error. */
export type ModelAnswer = ScriptedReply | { events: AssistantMessageEvent[] } | { throws: Error };

export interface RigOptions {
  /** Run through `createAgentLoopActor` (default) or an `Agent` (approvals and abort via its API). */
  entry?: "loop" | "agent";
  steering?: SteeringPolicy;
  toolExecution?: "parallel" | "sequential";
  /** Gate `beforeToolCall` / `afterToolCall` for these tool call ids (others pass at once). */
  holdBeforeToolCall?: string[];
  holdAfterToolCall?: string[];
  /** The `work` tool's replay policy (what a restore does with a call that was executing). */
  replay?: "never" | "safe";
  /** Hold the between-tools steering polls too (default: they drain the queue synchronously). */
  holdBetweenToolsPolls?: boolean;
  inspect?: (event: InspectionEvent) => void;
}

export class LoopRig {
  readonly events: AgentEvent[] = [];
  readonly controller = new AbortController();
  readonly queues = { steering: [] as AgentMessage[], followUp: [] as AgentMessage[] };
  /** Every message the test queued, to check none is lost or delivered twice. */
  readonly queued: AgentMessage[] = [];
  readonly modelCalls: { answer: Held<ModelAnswer>; messages: AgentMessage[] }[] = [];
  readonly turnPolls: Held<AgentMessage[]>[] = [];
  readonly toolPolls: Held<AgentMessage[]>[] = [];
  readonly stopDecisions: Held<boolean>[] = [];
  readonly toolRuns = new Map<string, Held<ToolResult>>();
  readonly beforeHooks = new Map<string, Held<BeforeToolCallResult | undefined>>();
  readonly afterHooks = new Map<string, Held<undefined>>();
  /** Read by the tool's `requiresApproval` when the current preflight passes. */
  approveNext = false;
  /** Counts inspection events: any step of any actor of the run changes it. */
  activity = 0;
  /** Model calls made when the run was aborted (none may follow). */
  callsAtAbort: number | undefined;
  /** The Agent (entry "agent", or the one `restoreHere` made) and the promise of its `prompt()`. */
  agent: Agent | undefined;
  #prompted: Promise<unknown> | undefined;
  readonly #actor: AgentActor | undefined;
  readonly #config: AgentLoopConfig;
  readonly #tools: AgentTool[];

  constructor(readonly options: RigOptions = {}) {
    const execute = async (_args: unknown, ctx: { toolCallId: string; signal: AbortSignal }) =>
      this.#hold(this.toolRuns, ctx.toolCallId, ctx.signal).promise;
    const tools = [
      defineTool({
        name: "work",
        description: "Work the test finishes",
        parameters: z.object({}),
        requiresApproval: () => this.approveNext,
        replay: options.replay ?? "never",
        execute,
      }),
      defineTool({
        name: "guarded",
        description: "Needs approval",
        parameters: z.object({}),
        requiresApproval: true,
        execute,
      }),
    ];
    const config: AgentLoopConfig = {
      model: testModel,
      streamFn: this.#streamFn,
      steering: options.steering,
      toolExecution: options.toolExecution,
      signal: this.controller.signal,
      // Held: the poll at run start, and the between-tools polls if asked. After a turn, the loop
      // waits on the held shouldStopAfterTurn instead, and its steering poll drains at once.
      getSteeringMessages: () => {
        const betweenTools = this.actor.getSnapshot().matches({ running: "executingTools" });
        const held = betweenTools ? options.holdBetweenToolsPolls : this.modelCalls.length === 0;
        if (!held) return this.drain("steering");
        const poll: Held<AgentMessage[]> = { gate: deferred<AgentMessage[]>(), released: false };
        (betweenTools ? this.toolPolls : this.turnPolls).push(poll);
        return poll.gate.promise;
      },
      shouldStopAfterTurn: () => {
        const decision: Held<boolean> = { gate: deferred<boolean>(), released: false };
        this.stopDecisions.push(decision);
        return decision.gate.promise;
      },
      getFollowUpMessages: () => this.drain("followUp"),
      restoreQueuedMessages: (queue, messages) => this.queues[queue].unshift(...messages),
      beforeToolCall: ({ toolCall }, signal) =>
        options.holdBeforeToolCall?.includes(toolCall.id)
          ? this.#hold(this.beforeHooks, toolCall.id, signal).promise
          : undefined,
      afterToolCall: ({ toolCall }, signal) =>
        options.holdAfterToolCall?.includes(toolCall.id)
          ? this.#hold(this.afterHooks, toolCall.id, signal).promise
          : undefined,
      inspect: (event) => {
        this.activity++;
        options.inspect?.(event);
      },
    };
    this.#config = config;
    this.#tools = tools;
    const sink = (event: AgentEvent) => {
      this.events.push(event);
    };
    if (options.entry === "agent") {
      const { model, streamFn, steering, beforeToolCall, afterToolCall, inspect } = config;
      this.agent = new Agent({ model, streamFn, steering, beforeToolCall, afterToolCall, inspect, tools });
      this.agent.subscribe(sink);
    } else {
      this.#actor = createAgentLoopActor(emptyContext({ tools }), config);
      this.#actor.on("*", sink);
      this.#actor.start();
    }
  }

  /** The run's loop actor (for an Agent: once prompted). */
  get actor(): AgentActor {
    return (this.agent?.actor ?? this.#actor)!;
  }

  /** Starts the run: `PROMPT` to the actor, or `agent.prompt()`. */
  start(): void {
    if (this.agent) this.#prompted = this.agent.prompt("start");
    else this.actor.send({ type: "PROMPT", messages: [user("start")] });
  }

  approve(toolCallId: string): void {
    if (this.agent) this.agent.approveToolCall(toolCallId);
    else this.actor.send({ type: "APPROVE_TOOL", toolCallId });
  }

  deny(toolCallId: string, reason: string): void {
    if (this.agent) this.agent.denyToolCall(toolCallId, reason);
    else this.actor.send({ type: "DENY_TOOL", toolCallId, reason });
  }

  /** Drains a queue as an Agent would: all steering messages, one follow-up ("one-at-a-time"). */
  drain(queue: "steering" | "followUp"): AgentMessage[] {
    const taken = this.queues[queue].splice(0);
    if (queue === "followUp") this.queues.followUp.push(...taken.splice(1));
    return taken;
  }

  enqueue(queue: "steering" | "followUp"): void {
    const message = user(`${queue} ${this.queued.length + 1}`);
    this.queued.push(message);
    this.queues[queue].push(message);
  }

  abort(via: "event" | "signal" | "fail"): void {
    this.callsAtAbort ??= this.modelCalls.length;
    if (via === "fail") {
      if (this.agent) this.agent.fail(new Error("a hook failed"));
      else this.actor.send({ type: "FAIL", error: "a hook failed" });
    } else if (this.agent) this.agent.abort();
    else if (via === "event") this.actor.send({ type: "ABORT" });
    else this.controller.abort();
  }

  /**
   * Persists the agent as JSON, stops it (its held work sees its signal aborted) and goes on with
   * `Agent.restore` of that JSON, as another process would.
   */
  restoreHere(): void {
    const saved = JSON.stringify(this.agent ? this.agent.persist() : persistAgent(this.actor));
    this.actor.stop();
    const { signal: _signal, ...options } = this.#config;
    this.agent = Agent.restore(saved, { ...options, tools: this.#tools });
    this.agent.subscribe((event) => {
      this.events.push(event);
    });
    this.#prompted = this.agent.waitForIdle();
  }

  /**
   * Lets the run finish on its own terms: answers every open model call with text, every poll with the
   * queue and every stop decision with "go on", completes held tools and hooks, approves waiting calls.
   */
  async runToCompletion(): Promise<void> {
    for (let round = 0; round < 40; round++) {
      await settle(this);
      if (this.actor.getSnapshot().matches("idle")) return;
      for (const call of this.modelCalls.filter((c) => !c.answer.released)) {
        call.answer.released = true;
        call.answer.gate.resolve({ text: "Finished." });
      }
      for (const poll of [...this.turnPolls, ...this.toolPolls].filter((p) => !p.released)) {
        poll.released = true;
        poll.gate.resolve(this.drain("steering"));
      }
      for (const decision of this.stopDecisions.filter((d) => !d.released)) {
        decision.released = true;
        decision.gate.resolve(false);
      }
      for (const [id, held] of this.toolRuns)
        if (!held.released)
          this.release(this.toolRuns, id, { value: { content: [{ type: "text", text: "ok" }] } });
      for (const map of [this.beforeHooks, this.afterHooks] as Map<string, Held<undefined>>[])
        for (const [id, held] of map) if (!held.released) this.release(map, id, { value: undefined });
      for (const [id, child] of Object.entries(this.actor.getSnapshot().children)) {
        const snapshot = child?.getSnapshot() as { matches?: (state: string) => boolean } | undefined;
        if (snapshot?.matches?.("awaitingApproval")) this.approve(id);
      }
    }
    throw new Error("the restored run did not finish");
  }

  /** The one model call not answered yet. */
  pendingModelCall() {
    const open = this.modelCalls.filter((call) => !call.answer.released);
    if (open.length !== 1) throw new Error(`expected one open model call, found ${open.length}`);
    return { ...open[0]!, number: this.modelCalls.indexOf(open[0]!) + 1 };
  }

  answerModel(answer: ModelAnswer): void {
    const call = this.pendingModelCall().answer;
    call.released = true;
    if ("throws" in answer) call.gate.reject(answer.throws);
    else call.gate.resolve(answer);
  }

  /** Answers the one open poll of `polls` with the steering queue, or makes it fail. */
  answerPoll(polls: Held<AgentMessage[]>[], outcome: "answer" | "throw"): void {
    const poll = onlyOpen(polls, "steering poll");
    if (outcome === "answer") poll.gate.resolve(this.drain("steering"));
    else poll.gate.reject(new Error("steering queue unavailable"));
  }

  /** Lets the loop decide what follows: at run start its steering poll, after a turn shouldStopAfterTurn. */
  decide(outcome: "answer" | "stop" | "throw"): void {
    if (this.modelCalls.length === 0 && outcome !== "stop") {
      this.answerPoll(this.turnPolls, outcome);
      return;
    }
    const decision = onlyOpen(this.stopDecisions, "shouldStopAfterTurn call");
    if (outcome === "throw") decision.gate.reject(new Error("shouldStopAfterTurn failed"));
    else decision.gate.resolve(outcome === "stop");
  }

  /** Completes a held piece of work; throws if the loop never started it. */
  release<T>(map: Map<string, Held<T>>, id: string, outcome: { value: T } | { error: Error }): void {
    const held = map.get(id);
    if (!held || held.released) throw new Error(`nothing held for ${id}`);
    held.released = true;
    if ("value" in outcome) held.gate.resolve(outcome.value);
    else held.gate.reject(outcome.error);
  }

  /**
   * Ends the run (ABORT if still running; a run that never started is started and aborted, so every
   * test ends with one), then lets every held piece of work finish late.
   */
  async finish(): Promise<void> {
    if (this.events.length === 0) this.start();
    if (!this.actor.getSnapshot().matches("idle")) this.abort("event");
    await settle(this);
    for (const poll of [...this.turnPolls, ...this.toolPolls].filter((p) => !p.released)) {
      poll.released = true;
      poll.gate.resolve(this.drain("steering"));
    }
    for (const decision of this.stopDecisions.filter((d) => !d.released)) {
      decision.released = true;
      decision.gate.resolve(false);
    }
    for (const call of this.modelCalls.filter((c) => !c.answer.released)) {
      call.answer.released = true;
      call.answer.gate.resolve({ text: "too late" });
    }
    for (const map of [this.toolRuns, this.beforeHooks, this.afterHooks] as Map<string, Held<unknown>>[]) {
      for (const [, held] of map) {
        if (held.released) continue;
        held.released = true;
        held.late = true;
        held.gate.resolve(map === this.toolRuns ? { content: [] } : undefined);
      }
    }
    await settle(this);
    await this.#prompted;
  }

  readonly #streamFn: StreamFn = async (model, context, options) => {
    const answer: Held<ModelAnswer> = { gate: deferred<ModelAnswer>(), released: false };
    this.modelCalls.push({ answer, messages: [...context.messages] });
    const reply = await answer.gate.promise;
    if ("events" in reply) return eventStream(reply.events);
    return scriptedModel([reply as ScriptedReply])(model, context, options);
  };

  #hold<T>(map: Map<string, Held<T>>, id: string, signal: AbortSignal): Deferred<T> {
    // Work of a stopped (persisted and restored) agent was aborted: the restored agent may start it again.
    if (map.has(id) && !map.get(id)!.signal?.aborted) throw new Error(`${id} started twice`);
    const held: Held<T> = { gate: deferred<T>(), signal, released: false };
    map.set(id, held);
    return held.gate;
  }
}

function onlyOpen<T>(held: Held<T>[], what: string): Held<T> {
  const open = held.filter((item) => !item.released);
  if (open.length !== 1) throw new Error(`expected one open ${what}, found ${open.length}`);
  open[0]!.released = true;
  return open[0]!;
}

async function* eventStream(events: AssistantMessageEvent[]) {
  yield* events;
}

/** A provider that reports an abort of its own (reason "aborted") without the run being aborted. */
export function providerAbortedEvents(): AssistantMessageEvent[] {
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "cut" }],
    api: testModel.api,
    provider: testModel.provider,
    model: testModel.id,
    usage: emptyUsage(),
    stopReason: "aborted",
    errorMessage: "provider aborted",
    timestamp: 0,
  };
  return [
    { type: "start", partial: message },
    { type: "error", reason: "aborted", error: message },
  ];
}

/**
 * Lets the system run until nothing changes: every step is a promise callback, so a macrotask turn in
 * which no actor stepped and no event was emitted means the system waits for the test.
 */
export async function settle(rig: LoopRig): Promise<void> {
  for (let turn = 0; turn < 50; turn++) {
    const before = rig.activity + rig.events.length;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (before === rig.activity + rig.events.length) return;
  }
  throw new Error("the loop did not settle");
}
