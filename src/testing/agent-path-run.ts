import { isDeepStrictEqual } from "node:util";
import { type Actor, createActor, type InspectionEvent, type SnapshotFrom, transition } from "xstate";
import type { AgentCommand } from "../machines/agent/agent.events.js";
import type { AgentMachineInput } from "../machines/agent/agent.machine.js";
import type { AgentMachine } from "../machines/agent/agent.provided.js";
import type { AgentEvent } from "../types/events.js";
import type { GuardrailVerdict } from "../types/guardrail.js";
import type { AgentMessage } from "../types/messages.js";
import type { ToolExecutionContext, ToolResult } from "../types/tool.js";
import type {
  AgentInvariant,
  AgentTestObservation,
  TextDeltaRecord,
  ToolExecutionRecord,
} from "./agent-observation.js";
import { AgentTestError } from "./agent-test-error.js";
import type { OutsideEvent, OutsideWorld } from "./outside-model.js";

/** Event-loop turns a step may take to come to rest before the kit calls the run hung. */
const SETTLE_TURNS = 200;

/** A piece of work the path completes: a model call, a tool's `execute`, a guardrail verdict. */
interface Held<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  open: boolean;
}

function hold<T>(signal: AbortSignal | undefined, onAbort: T): { held: Held<T>; promise: Promise<T> } {
  let held!: Held<T>;
  const promise = new Promise<T>((resolve, reject) => {
    held = {
      resolve: (value) => {
        held.open = false;
        resolve(value);
      },
      reject: (error) => {
        held.open = false;
        reject(error);
      },
      open: true,
    };
  });
  signal?.addEventListener("abort", () => held.open && held.resolve(onAbort), { once: true });
  return { held, promise };
}

/** What a model call waits for: the next scripted reply (by index), an error, or the run's abort. */
export type ModelAnswer = { reply: number } | { error: true } | { aborted: true };

/** A held tool execution: the call's arguments and context, to run the user's `execute` on `TOOL_DONE`. */
interface HeldExecution {
  held: Held<ToolResult>;
  run: () => Promise<ToolResult>;
}

/**
 * One path's run of the real agent: the actor, the work it waits for (the model call, tools'
 * executions, a guardrail verdict) and what the kit recorded. The machine's wrapped StreamFn, tools
 * and guardrails reach the current run through `AgentPathRun.current`.
 */
export class AgentPathRun {
  static current: AgentPathRun | undefined;

  readonly events: AgentEvent[] = [];
  readonly executions: ToolExecutionRecord[] = [];
  readonly textDeltas: TextDeltaRecord[] = [];
  readonly steps: string[] = [];
  readonly approved = new Set<string>();
  readonly denied = new Set<string>();
  readonly actor: Actor<AgentMachine>;
  modelCall: Held<ModelAnswer> | undefined;
  verdict: Held<"pass" | "trip"> | undefined;
  readonly toolRuns = new Map<string, HeldExecution>();
  #verdictPromise: Promise<"pass" | "trip"> | undefined;
  #nextReply = 0;
  #activity = 0;
  #passes = 0;
  #replies = 0;

  constructor(
    readonly machine: AgentMachine,
    input: AgentMachineInput,
    readonly world: OutsideWorld,
    readonly invariants: readonly AgentInvariant[],
    readonly commands: Record<string, AgentCommand>,
    inspect: (event: InspectionEvent) => void,
  ) {
    this.actor = createActor(machine, {
      input,
      inspect: (event) => {
        this.#activity++;
        inspect(event);
      },
    });
    this.actor.on("*", (event) => {
      this.events.push(event);
      if (event.type === "message_start" && event.message.role === "assistant") this.#replies++;
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
        this.textDeltas.push({ passesBefore: this.#passes, repliesBefore: this.#replies });
    });
  }

  /** The wrapped StreamFn's wait: resolved by `REPLY`, `MODEL_ERROR` or the call's abort. */
  awaitModel(signal: AbortSignal | undefined): Promise<ModelAnswer> {
    const { held, promise } = hold<ModelAnswer>(signal, { aborted: true });
    this.modelCall = held;
    return promise;
  }

  /** The wrapped output guardrails' wait: every guardrail of a reply shares the test's one verdict. */
  awaitVerdict(signal: AbortSignal): Promise<"pass" | "trip"> {
    if (this.verdict?.open && this.#verdictPromise) return this.#verdictPromise;
    const { held, promise } = hold<"pass" | "trip">(signal, "pass");
    this.verdict = held;
    this.#verdictPromise = promise;
    return promise;
  }

  /** The wrapped `execute`: recorded, then held until `TOOL_DONE` runs the user's or `TOOL_THROWS` throws. */
  awaitTool(
    toolName: string,
    args: unknown,
    context: ToolExecutionContext,
    execute: (args: unknown, context: ToolExecutionContext) => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const id = context.toolCallId;
    const call = this.world.replies.flatMap((reply) => reply.calls).find((scripted) => scripted.id === id);
    this.executions.push({
      toolCallId: id,
      toolName,
      needsApproval: call?.start === "approval",
      approved: this.approved.has(id),
      denied: this.denied.has(id),
    });
    const { held, promise } = hold<ToolResult>(context.signal, { content: [] });
    this.toolRuns.set(id, { held, run: () => execute(args, context) });
    return promise;
  }

  start(): void {
    AgentPathRun.current = this;
    this.actor.start();
  }

  /** Takes one outside event on the real agent and waits until the agent comes to rest. */
  async step(event: OutsideEvent, name: string): Promise<void> {
    this.steps.push(name);
    await this.#apply(event);
    await this.settle();
  }

  async #apply(event: OutsideEvent): Promise<void> {
    const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: Date.now() });
    switch (event.type) {
      case "PROMPT":
        this.actor.send({ type: "PROMPT", messages: [user("test prompt")] });
        return;
      case "REPLY":
        this.#open(this.modelCall, "model call").resolve({ reply: this.#nextReply++ });
        return;
      case "MODEL_ERROR":
        this.#open(this.modelCall, "model call").resolve({ error: true });
        return;
      case "GUARDRAIL":
        if (event.verdict === "pass") this.#passes++;
        this.#open(this.verdict, "guardrail check").resolve(event.verdict);
        return;
      case "APPROVE":
        this.approved.add(event.call);
        this.actor.send({ type: "APPROVE_TOOL", toolCallId: event.call });
        return;
      case "DENY":
        this.denied.add(event.call);
        this.actor.send({ type: "DENY_TOOL", toolCallId: event.call, reason: "denied by the test" });
        return;
      case "TOOL_DONE": {
        const run = this.#toolRun(event.call);
        // The user's own `execute` runs now, to its end (timers included), before the step settles.
        const outcome = await run.run().then(
          (value) => ({ value }),
          (error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) }),
        );
        if ("value" in outcome) run.held.resolve(outcome.value);
        else run.held.reject(outcome.error);
        return;
      }
      case "TOOL_THROWS":
        this.#toolRun(event.call).held.reject(new Error("thrown by the test"));
        return;
      case "CLIENT_ANSWER":
        this.actor.send({
          type: "ANSWER_TOOL",
          toolCallId: event.call,
          result: { content: [{ type: "text", text: "answered by the test" }] },
        });
        return;
      case "ABORT":
        this.actor.send({ type: "ABORT" });
        return;
      case "STEER":
        this.actor.send({ type: "STEER", message: user("steering from the test") });
        return;
      case "FOLLOW_UP":
        this.actor.send({ type: "FOLLOW_UP", message: user("follow-up from the test") });
        return;
      case "COMMAND":
        this.actor.send(this.commands[event.name]!);
        return;
    }
  }

  #open<T>(held: Held<T> | undefined, what: string): Held<T> {
    if (!held?.open) throw this.failure(`no ${what} waits for the test`);
    return held;
  }

  #toolRun(id: string): HeldExecution {
    const run = this.toolRuns.get(id);
    if (!run?.held.open) throw this.failure(`the tool of ${id} is not executing`);
    return run;
  }

  /**
   * Lets the agent run until nothing changes: every step of the agent is a promise callback or an
   * event, so an event-loop turn in which no actor stepped and no event was emitted means it waits
   * for the test. Throws after `SETTLE_TURNS` busy turns (a hang or an endless loop).
   */
  async settle(): Promise<void> {
    for (let turn = 0; turn < SETTLE_TURNS; turn++) {
      const before = this.#activity + this.events.length;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (before === this.#activity + this.events.length) return;
    }
    throw this.failure(`the agent did not come to rest within ${SETTLE_TURNS} event-loop turns`);
  }

  /** What the invariants see now. */
  #observe(ended: boolean): AgentTestObservation {
    return {
      snapshot: this.actor.getSnapshot(),
      events: this.events,
      executions: this.executions,
      textDeltas: this.textDeltas,
      guardrails: this.world.guardrails,
      steps: this.steps,
      ended,
    };
  }

  /** Runs every invariant on the current observation; throws `path_failed` naming the first that broke. */
  checkInvariants(ended: boolean): void {
    const observation = this.#observe(ended);
    for (const invariant of this.invariants) {
      const broken = invariant.check(observation);
      if (broken !== undefined) throw this.failure(`invariant "${invariant.name}" broke: ${broken}`);
    }
  }

  /**
   * Persists the agent (`getPersistedSnapshot`, through JSON), restores it into a new actor
   * (`createActor(machine, { snapshot })`, not started) and checks that it continues the same way:
   * its persisted snapshot is the same, and the pure `transition()` of each of `next` gives the
   * same state from the live and the restored snapshot.
   */
  checkRestore(next: AgentCommand[]): void {
    const persisted = JSON.parse(JSON.stringify(this.actor.getPersistedSnapshot())) as object;
    const restored = createActor(this.machine, { snapshot: persisted as never });
    const again = JSON.stringify(restored.getPersistedSnapshot());
    if (again !== JSON.stringify(persisted))
      throw this.failure("the restored agent's persisted snapshot differs from the one it was restored from");
    // As data (JSON: no undefined fields, any key order); messages the transition makes (an aborted
    // reply) carry its clock's time, left out.
    const stateOf = (snapshot: SnapshotFrom<AgentMachine>): unknown =>
      JSON.parse(
        JSON.stringify(
          { value: snapshot.value, status: snapshot.status, context: snapshot.context },
          (key, value) => (key === "timestamp" ? undefined : value),
        ),
      );
    for (const command of next) {
      const [live] = transition(this.machine, this.actor.getSnapshot(), command);
      const [fromRestored] = transition(this.machine, restored.getSnapshot(), command);
      if (!isDeepStrictEqual(stateOf(live), stateOf(fromRestored)))
        throw this.failure(`after a restore, ${command.type} leads elsewhere than in the live agent`);
    }
  }

  /** Ends the path: aborts a run still on, lets the agent come to rest, releases work left waiting. */
  async finish(): Promise<void> {
    if (!this.actor.getSnapshot().matches("idle")) this.actor.send({ type: "ABORT" });
    await this.settle();
    this.checkInvariants(true);
  }

  /** Stops the actor: work still held sees its AbortSignal and lets go (`hold`). */
  stop(): void {
    this.actor.stop();
    if (AgentPathRun.current === this) AgentPathRun.current = undefined;
  }

  failure(message: string): AgentTestError {
    return new AgentTestError("path_failed", `${this.steps.join(" → ") || "(start)"}: ${message}`);
  }
}

/** What a verdict means for the wrapped guardrail: the first one trips it, every other one passes. */
export function verdictFor(verdict: "pass" | "trip", first: boolean): GuardrailVerdict {
  return verdict === "trip" && first
    ? { tripwire: true, reason: "tripped by the test" }
    : { tripwire: false };
}
