import type { InspectionEvent } from "xstate";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentMessage } from "../../src/types/messages.js";
import type { StreamFn } from "../../src/types/stream.js";
import type { AgentTool, ToolResult } from "../../src/types/tool.js";
import { deferred, testModel, user } from "../support/loop-harness.js";

/**
 * The real system the composed model drives: a root `Agent` with one agent tool `helper` whose child
 * agent has one approval tool `refund`. Both levels' models are held: each model call waits until the
 * test answers it; `refund` runs until the test releases it. Nothing waits on time: `settleTree()` lets
 * every pending promise run.
 *
 * Ids: the root's n-th model call names its agent tool call `h<n>` (so the child's `agentPath` is
 * `["h<n>"]`), the children's n-th model call (counted over all children) names its refund call `r<n>`.
 */

export type Level = "root" | "child";
export type Deferred<T> = ReturnType<typeof deferred<T>>;

/** A piece of work the test completes; `generation` counts restores (0: the first agent). */
export interface Held<T> {
  gate: Deferred<T>;
  signal: AbortSignal;
  released: boolean;
  generation: number;
  /** Still running when the run ended: released by `finish()` only. */
  late?: boolean;
}

export interface ModelCall {
  level: Level;
  number: number;
  answer: Held<ScriptedReply>;
}

export interface RefundRun {
  toolCallId: string;
  idempotencyKey: string;
  held: Held<ToolResult>;
}

export type RootReply = "text" | "delegate" | "error";
export type ChildReply = "text" | "approval" | "error";

export class ComposedRig {
  readonly events: AgentEvent[] = [];
  readonly modelCalls: ModelCall[] = [];
  readonly refundRuns: RefundRun[] = [];
  /** Refund calls the test approved (by id). */
  readonly approved = new Set<string>();
  /** Every message the test queued, with the agent it went to ([] the root, ["h<n>"] a child). */
  readonly queued: { agentPath: string[]; message: AgentMessage }[] = [];
  /** Counts inspection events: any step of any actor of the tree changes it. */
  activity = 0;
  generation = 0;
  /** A listener calls `abort()` at the next `turn_end` of any agent of the tree (then disarms). */
  abortAtNextTurnEnd = false;
  /** Model calls made when the run was aborted (none may follow). */
  callsAtAbort: number | undefined;
  agent: Agent;
  #run: Promise<unknown> | undefined;

  constructor(readonly options: { replay: "never" | "safe"; inspect?: (event: InspectionEvent) => void }) {
    this.agent = new Agent({
      model: testModel,
      agentId: "root",
      streamFn: this.#streamFn("root"),
      tools: this.tools(),
      inspect: this.#inspect,
    });
    this.agent.subscribe(this.#record);
  }

  /** Fresh tool definitions (a restore gets new ones, as another process would build them). */
  tools(): AgentTool[] {
    const refund = defineTool({
      name: "refund",
      description: "Refunds an order",
      parameters: z.object({ order: z.string() }),
      requiresApproval: true,
      replay: this.options.replay,
      execute: (_args, ctx) => {
        const held = this.#hold<ToolResult>(ctx.signal);
        this.refundRuns.push({ toolCallId: ctx.toolCallId, idempotencyKey: ctx.idempotencyKey, held });
        return held.gate.promise;
      },
    });
    const helper = defineAgentTool({
      name: "helper",
      description: "Delegates a task",
      agent: { systemPrompt: "You help.", streamFn: this.#streamFn("child"), tools: [refund] },
      // Two prompt messages: the child injects them one per step.
      input: ({ task }) => [user(task), user(`context for ${task}`)],
    });
    return [helper];
  }

  /** The child agent's path: the root's call that is delegating now (if any). */
  childPath(): string[] | undefined {
    const calls = Object.keys(this.agent.actor.getSnapshot().children).filter((id) => /^h\d+$/.test(id));
    return calls.length === 1 ? calls : undefined;
  }

  start(): void {
    this.#run = this.agent.prompt("start");
  }

  reply(level: Level, kind: RootReply | ChildReply): void {
    const call = this.pendingModelCall(level);
    const usage = { input: call.number * 10 + (level === "root" ? 1 : 2), output: 1 };
    const replies: Record<string, ScriptedReply> = {
      "root:text": { text: `root reply ${call.number}`, usage },
      "root:delegate": {
        toolCalls: [{ id: `h${call.number}`, name: "helper", arguments: { task: `task ${call.number}` } }],
        usage,
      },
      "root:error": { text: "cut", error: "overloaded", usage },
      "child:text": { text: `child reply ${call.number}`, usage },
      "child:approval": {
        toolCalls: [{ id: `r${call.number}`, name: "refund", arguments: { order: `A-${call.number}` } }],
        usage,
      },
      "child:error": { text: "cut", error: "overloaded", usage },
    };
    call.answer.released = true;
    call.answer.gate.resolve(replies[`${level}:${kind}`]!);
  }

  /** The one open model call of `level` of the current agent. */
  pendingModelCall(level: Level): ModelCall {
    const open = this.#open().filter((call) => call.level === level);
    if (open.length !== 1) throw new Error(`expected one open ${level} model call, found ${open.length}`);
    return open[0]!;
  }

  /** The refund call waiting for approval (with its agent path). */
  waitingRefund() {
    const [waiting, ...more] = this.agent.state.awaitingApproval;
    if (!waiting || more.length > 0) throw new Error("expected one call awaiting approval");
    return waiting;
  }

  approve(): void {
    const { toolCallId, agentPath } = this.waitingRefund();
    this.approved.add(toolCallId);
    this.agent.approveToolCall(toolCallId, { agentPath });
  }

  deny(): void {
    const { toolCallId, agentPath } = this.waitingRefund();
    this.agent.denyToolCall(toolCallId, "not now", { agentPath });
  }

  /** Finishes the running refund execution of the current agent. */
  releaseRefund(): void {
    const running = this.refundRuns.filter((run) => !run.held.released);
    if (running.length !== 1) throw new Error(`expected one running refund, found ${running.length}`);
    this.releaseRunning(running[0]!);
  }

  enqueue(queue: "steer" | "followUp", level: Level): void {
    const agentPath = level === "root" ? [] : this.childPath();
    if (!agentPath) throw new Error("no child agent is running");
    const message = user(`${queue} ${this.queued.length + 1} to ${level}`);
    this.queued.push({ agentPath, message });
    this.agent[queue](message, { agentPath });
  }

  abort(): void {
    this.callsAtAbort ??= this.modelCalls.length;
    this.agent.abort();
  }

  /**
   * Persists the agent as JSON, stops it (its held work sees its signal aborted) and goes on with
   * `Agent.restore` of that JSON and fresh tool definitions, as another process would. Model calls the
   * stopped agent left open are answered late (the stopped tree must ignore them).
   */
  restoreHere(): void {
    const saved = JSON.stringify(this.agent.persist());
    this.agent.actor.stop();
    for (const call of this.#open()) {
      call.answer.released = true;
      call.answer.gate.resolve({ text: "from a stopped agent" });
    }
    this.generation++;
    this.agent = Agent.restore(saved, {
      streamFn: this.#streamFn("root"),
      tools: this.tools(),
      inspect: this.#inspect,
    });
    this.agent.subscribe(this.#record);
    this.#run = this.agent.waitForIdle();
  }

  /**
   * Lets the run finish on its own terms: answers every open model call with text, approves every
   * waiting call, completes running refunds.
   */
  async runToCompletion(): Promise<void> {
    for (let round = 0; round < 40; round++) {
      await settleTree(this);
      if (this.agent.actor.getSnapshot().matches("idle")) return;
      for (const call of this.#open()) this.reply(call.level, "text");
      for (const run of this.refundRuns.filter(
        (r) => !r.held.released && r.held.generation === this.generation,
      ))
        this.releaseRunning(run);
      if (this.agent.state.awaitingApproval.length > 0) this.approve();
    }
    throw new Error("the run did not finish");
  }

  releaseRunning(run: RefundRun): void {
    run.held.released = true;
    run.held.gate.resolve({ content: [{ type: "text", text: `refunded (${run.toolCallId})` }] });
  }

  /**
   * Ends the run (abort if still running; a run that never started is started and aborted, so every
   * test ends with one), then lets every held piece of work finish late.
   */
  async finish(): Promise<void> {
    if (this.events.length === 0) this.start();
    if (!this.agent.actor.getSnapshot().matches("idle")) this.abort();
    await settleTree(this);
    for (const call of this.modelCalls.filter((c) => !c.answer.released)) {
      call.answer.released = true;
      call.answer.gate.resolve({ text: "too late" });
    }
    for (const run of this.refundRuns.filter((r) => !r.held.released)) {
      run.held.late = true;
      this.releaseRunning(run);
    }
    await settleTree(this);
    await this.#run;
  }

  #open(): ModelCall[] {
    return this.modelCalls.filter(
      (call) => !call.answer.released && call.answer.generation === this.generation,
    );
  }

  #streamFn(level: Level): StreamFn {
    return async (model, context, options) => {
      const number = this.modelCalls.filter((call) => call.level === level).length + 1;
      const answer = this.#hold<ScriptedReply>(options.signal ?? new AbortController().signal);
      this.modelCalls.push({ level, number, answer });
      const reply = await answer.gate.promise;
      return scriptedModel([reply])(model, context, options);
    };
  }

  #hold<T>(signal: AbortSignal): Held<T> {
    return { gate: deferred<T>(), signal, released: false, generation: this.generation };
  }

  readonly #inspect = (event: InspectionEvent) => {
    this.activity++;
    this.options.inspect?.(event);
  };

  readonly #record = (event: AgentEvent) => {
    this.events.push(event);
    if (event.type !== "turn_end" || !this.abortAtNextTurnEnd) return;
    this.abortAtNextTurnEnd = false;
    this.abort();
  };
}

/**
 * Lets the tree run until nothing changes: every step is a promise callback, so a macrotask turn in
 * which no actor stepped and no event was emitted means the tree waits for the test.
 */
export async function settleTree(rig: ComposedRig): Promise<void> {
  for (let turn = 0; turn < 50; turn++) {
    const before = rig.activity + rig.events.length;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (before === rig.activity + rig.events.length) return;
  }
  throw new Error("the agent tree did not settle");
}
