import {
  assign,
  type DoneActorEvent,
  type ErrorActorEvent,
  forwardTo,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
} from "xstate";
import type { CompactionReason } from "../../types/harness-messages.js";
import type { AgentMessage, AssistantMessage, ImageContent } from "../../types/messages.js";
import type { AgentParentEvent } from "../agent/agent.context.js";
import type { AgentCommand, ResumedCallState } from "../agent/agent.events.js";
import { agentMachine } from "../agent/agent.machine.js";
import type { SessionCommand, SessionReply } from "./harness.events.js";

/** The phases of an AgentHarness: the top-level states of `harnessMachine`. */
export type HarnessPhase = "idle" | "turn" | "compaction" | "branchSummary" | "retry";

/** Options of `AgentHarness.navigateTree`. */
export interface NavigateTreeOptions {
  /** Summarise the branch being left (needs a compaction port, or a hook that supplies the summary). */
  summarize?: boolean;
  customInstructions?: string;
  /** Label for the new branch summary entry (or the target entry when there is no summary). */
  label?: string;
}

/** `prompt`, `skill`, `promptFromTemplate`: a run started with `messages` (the `nextTurn` queue, then the prompt). */
export interface PromptOperation {
  kind: "prompt";
  messages: AgentMessage[];
  /** The prompt's text and images, as `before_agent_start` sees them. */
  prompt: string;
  images: ImageContent[];
}
/** `resume()`: a run that first answers the recorded reply's unanswered calls (`calls`), or just asks the model. */
export interface ResumeOperation {
  kind: "resume";
  calls?: { message: AssistantMessage; states: Record<string, ResumedCallState> };
}
/** `compact(instructions?)`. */
export interface CompactOperation {
  kind: "compact";
  instructions?: string;
}
/** `navigateTree(targetId, options)`. */
export interface NavigateOperation {
  kind: "navigate";
  targetId: string;
  options: NavigateTreeOptions;
}
/** The operations whose work is a turn (an Agent run). */
export type TurnOperation = PromptOperation | ResumeOperation;

/**
 * One public call in progress: what was asked, and once known its `result` (what the caller's promise
 * resolves with: the run's last assistant message, the compaction or navigation result) or its `error`.
 * `aborted`: `abort()` ended the operation before it had an outcome.
 */
export type HarnessOperation = (TurnOperation | CompactOperation | NavigateOperation) & {
  result?: unknown;
  error?: unknown;
  aborted?: boolean;
};

/**
 * How a turn (one Agent run) ended: `done` (success, abort or a final error), `retryable` (a transient
 * provider error), `overflow` (the context did not fit). `compactionDue`: the context now exceeds the
 * compaction threshold.
 */
export interface TurnOutcome {
  verdict: "done" | "retryable" | "overflow";
  compactionDue: boolean;
}
/** The input of the `turn` actor. */
export interface TurnInput {
  /** `start` runs the operation; `continue` re-asks the model after a retry wait or a compaction. */
  mode: "start" | "continue";
  operation: TurnOperation;
}
export interface BackoffInput {
  attempt: number;
}
export interface CompactionInput {
  reason: CompactionReason;
  /** The instructions of a manual compaction. */
  instructions: string | undefined;
}
/**
 * Whether a compaction happened (automatic compactions report failures as `compacted: false`). The
 * output of a manual compaction is also its operation's result (`HarnessCompactResult`).
 */
export interface CompactionOutcome {
  compacted: boolean;
}

export interface HarnessMachineInput {
  maxRetries: number;
  /** A context overflow may be answered by compacting and retrying the turn once. */
  overflowRecovery: boolean;
}

export interface HarnessMachineContext extends HarnessMachineInput {
  /** The operation in progress; undefined while idle. */
  operation: HarnessOperation | undefined;
  attempt: number;
  overflowRecovered: boolean;
  turnMode: TurnInput["mode"];
  compactionReason: CompactionReason;
}

/** The agent's commands the harness passes to its child `agent` in any phase. */
export type HarnessAgentCommand = Extract<
  AgentCommand,
  { type: "APPROVE_TOOL" | "DENY_TOOL" | "ANSWER_TOOL" | "STEER" | "FOLLOW_UP" }
>;

/** The agent's events the harness records in its session (its child `agent` sends them as `agent.<type>`). */
export const RECORDED_AGENT_EVENTS = ["agent_start", "message_end", "turn_end", "agent_end"] as const;
/** The agent's events the harness receives to record them (`agent.<type>` of `RECORDED_AGENT_EVENTS`). */
export type RecordedAgentEvent = Extract<
  AgentParentEvent,
  { type: `agent.${(typeof RECORDED_AGENT_EVENTS)[number]}` }
>;

export type HarnessMachineEvent =
  /** Runs a turn with `messages` (the prompt is the last one; earlier ones, e.g. `nextTurn`, go first). */
  | { type: "PROMPT"; messages: AgentMessage[] }
  | HarnessAgentCommand
  /** Passed to the session actor (`session`), which answers with a `SessionReply`. */
  | Exclude<SessionCommand, { type: "session.record" }>
  | SessionReply
  | RecordedAgentEvent
  | { type: "RESUME"; operation: ResumeOperation }
  | { type: "COMPACT"; operation: CompactOperation }
  | { type: "NAVIGATE"; operation: NavigateOperation }
  | { type: "ABORT" }
  /** Sent back by the `turn` actor: the run ended; `reply` is its last assistant message. */
  | { type: "TURN_DONE"; outcome: TurnOutcome; reply: AssistantMessage | undefined }
  /** Sent back by the `turn` actor: the turn failed, e.g. its entries could not be persisted. */
  | { type: "TURN_FAILED"; error: unknown }
  | DoneActorEvent<void, "backoff">
  | DoneActorEvent<CompactionOutcome, "compaction">
  | DoneActorEvent<unknown, "navigation">
  | ErrorActorEvent<unknown, "backoff">
  | ErrorActorEvent<unknown, "compaction">
  | ErrorActorEvent<unknown, "navigation">;

const notProvided = (name: string) => () =>
  Promise.reject(new Error(`harnessMachine: actor "${name}" not provided`));

/**
 * The harness's phases as a statechart, and the one owner of an operation: PROMPT, RESUME, COMPACT
 * and NAVIGATE carry the operation into the context, the phases' actors do its work, their outputs
 * become its `result` (or `error`), and entering `idle` hands it to `settle` (the caller's promise).
 * `idle` —PROMPT/RESUME→ `turn` (the invoked actor `turn`: an Agent run) → `idle`, or → `retry`
 * (abortable backoff, then the turn continues) on a transient error while retries remain, or →
 * `compaction` on a context overflow (once per operation; the turn then continues) or when the context
 * passed the threshold (then idle). `idle` —COMPACT→ `compaction`, —NAVIGATE→ `branchSummary` (tree
 * navigation, summarising or not). `ABORT` ends `retry`, `compaction` and `branchSummary` at once
 * (their invoked actor's signal aborts); in `turn` it is forwarded to the `turn` actor, which aborts
 * the run, and the turn ends as every turn does: `turn` sends back `TURN_DONE {outcome, reply}` or
 * `TURN_FAILED {error}`. The harness provides the actors `turn`, `backoff`, `compact`, `navigate` and
 * the action `settle` (`harnessMachine.provide(...)`); every other action is an assignment.
 */
export const harnessMachine = setup({
  types: {
    context: {} as HarnessMachineContext,
    events: {} as HarnessMachineEvent,
    // Optional: a harness machine from `createHarnessMachine` fills it in from its options.
    // biome-ignore lint/suspicious/noConfusingVoidType: `void` lets `createActor(machine)` omit the input.
    input: {} as HarnessMachineInput | void,
  },
  actors: {
    agent: agentMachine,
    session: fromCallback<SessionCommand>(() => {
      throw new Error('harnessMachine: actor "session" not provided');
    }),
    turn: fromCallback<{ type: "ABORT" }, TurnInput>(() => {
      throw new Error('harnessMachine: actor "turn" not provided');
    }),
    backoff: fromPromise<void, BackoffInput>(notProvided("backoff")),
    compact: fromPromise<CompactionOutcome, CompactionInput>(notProvided("compact")),
    navigate: fromPromise<unknown, NavigateOperation>(notProvided("navigate")),
  },
  actions: {
    /** Hands the finished operation to its caller (no-op without one). */
    settle: (_, _params: { operation: HarnessOperation | undefined }) => {},
    startOperation: assign((_, operation: HarnessOperation) => ({
      operation,
      attempt: 0,
      overflowRecovered: false,
      turnMode: "start" as const,
    })),
    endOperation: assign({ operation: undefined }),
    abortTurn: forwardTo("turn"),
    toAgent: forwardTo("agent"),
    toSession: forwardTo("session"),
    recordInSession: sendTo("session", ({ event }) => ({
      type: "session.record" as const,
      event: (event as RecordedAgentEvent).event,
    })),
    recordResult: assign(({ context }, { result }: { result: unknown }) =>
      result === undefined || !context.operation ? {} : { operation: { ...context.operation, result } },
    ),
    recordFailure: assign(({ context }, { error }: { error: unknown }) =>
      context.operation ? { operation: { ...context.operation, error } } : {},
    ),
    recordAbort: assign(({ context }) =>
      context.operation ? { operation: { ...context.operation, aborted: true } } : {},
    ),
    continueTurn: assign({ turnMode: "continue" as const }),
    countRetry: assign({ attempt: ({ context }) => context.attempt + 1 }),
    compactFor: assign((_, reason: CompactionReason) => ({
      compactionReason: reason,
      ...(reason === "overflow" ? { overflowRecovered: true } : {}),
    })),
  },
  guards: {
    canRetry: ({ context }, outcome: TurnOutcome) =>
      outcome.verdict === "retryable" && context.attempt < context.maxRetries,
    canRecoverOverflow: ({ context }, outcome: TurnOutcome) =>
      outcome.verdict === "overflow" && context.overflowRecovery && !context.overflowRecovered,
    compactionDue: (_, outcome: TurnOutcome) => outcome.verdict === "done" && outcome.compactionDue,
    resumesTurn: ({ context }, outcome: CompactionOutcome) =>
      context.compactionReason === "overflow" && outcome.compacted,
    isManualCompaction: ({ context }) => context.compactionReason === "manual",
  },
}).createMachine({
  id: "harness",
  description:
    "One operation of an AgentHarness at a time — a turn, a compaction, a branch summary — with retries between turns; each operation's outcome goes back to its caller.",
  context: ({ input }) => ({
    maxRetries: input ? input.maxRetries : 0,
    overflowRecovery: input ? input.overflowRecovery : false,
    operation: undefined,
    attempt: 0,
    overflowRecovered: false,
    turnMode: "start",
    compactionReason: "manual",
  }),
  // The harness's agent lives as long as the harness: its turns are runs of this child.
  // The session actor writes the session; the agent records its run there through the harness.
  invoke: [
    { id: "session", src: "session" },
    // Its parent events are the RECORDED_AGENT_EVENTS (the provided agent's input names them).
    { id: "agent", src: "agent" },
  ],
  on: {
    "agent.agent_start": { actions: "recordInSession" },
    "agent.message_end": { actions: "recordInSession" },
    "agent.turn_end": { actions: "recordInSession" },
    "agent.agent_end": { actions: "recordInSession" },
    "session.append": { actions: "toSession" },
    "session.label": { actions: "toSession" },
    "session.branch": { actions: "toSession" },
    "session.compact": { actions: "toSession" },
    "session.flush": { actions: "toSession" },
    APPROVE_TOOL: { actions: "toAgent" },
    DENY_TOOL: { actions: "toAgent" },
    ANSWER_TOOL: { actions: "toAgent" },
    STEER: { actions: "toAgent" },
    FOLLOW_UP: { actions: "toAgent" },
  },
  initial: "idle",
  states: {
    idle: {
      description: "No operation: waits for a prompt, a resume, a compaction or a navigation.",
      entry: [
        { type: "settle", params: ({ context }) => ({ operation: context.operation }) },
        "endOperation",
      ],
      on: {
        PROMPT: {
          target: "turn",
          actions: { type: "startOperation", params: ({ event }) => promptOperationOf(event.messages) },
        },
        RESUME: {
          target: "turn",
          actions: { type: "startOperation", params: ({ event }) => event.operation },
        },
        COMPACT: {
          target: "compaction",
          actions: [
            { type: "startOperation", params: ({ event }) => event.operation },
            { type: "compactFor", params: "manual" },
          ],
        },
        NAVIGATE: {
          target: "branchSummary",
          actions: { type: "startOperation", params: ({ event }) => event.operation },
        },
      },
    },
    turn: {
      description:
        "An agent run (the turn actor) for a prompt or a resume; its outcome decides what follows.",
      invoke: {
        id: "turn",
        src: "turn",
        // Only PROMPT and RESUME enter `turn` from idle, so the operation is a turn's.
        input: ({ context }) => ({ mode: context.turnMode, operation: context.operation as TurnOperation }),
      },
      on: {
        ABORT: { actions: "abortTurn" },
        TURN_DONE: [
          {
            guard: { type: "canRetry", params: ({ event }) => event.outcome },
            target: "retry",
            actions: [
              { type: "recordResult", params: ({ event }) => ({ result: event.reply }) },
              "countRetry",
            ],
          },
          {
            guard: { type: "canRecoverOverflow", params: ({ event }) => event.outcome },
            target: "compaction",
            actions: [
              { type: "recordResult", params: ({ event }) => ({ result: event.reply }) },
              { type: "compactFor", params: "overflow" },
            ],
          },
          {
            guard: { type: "compactionDue", params: ({ event }) => event.outcome },
            target: "compaction",
            actions: [
              { type: "recordResult", params: ({ event }) => ({ result: event.reply }) },
              { type: "compactFor", params: "threshold" },
            ],
          },
          {
            target: "idle",
            actions: { type: "recordResult", params: ({ event }) => ({ result: event.reply }) },
          },
        ],
        TURN_FAILED: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    retry: {
      description: "A retryable failure: waits out the backoff, then continues the turn.",
      invoke: {
        id: "backoff",
        src: "backoff",
        input: ({ context }) => ({ attempt: context.attempt }),
        onDone: { target: "turn", actions: "continueTurn" },
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle", actions: "recordAbort" } },
    },
    compaction: {
      description:
        "Summarises the older part of the branch (manual, after a turn, or to recover an overflow).",
      invoke: {
        id: "compaction",
        src: "compact",
        input: ({ context }) => ({
          reason: context.compactionReason,
          instructions: context.operation?.kind === "compact" ? context.operation.instructions : undefined,
        }),
        onDone: [
          {
            guard: { type: "resumesTurn", params: ({ event }) => event.output },
            target: "turn",
            actions: "continueTurn",
          },
          {
            guard: "isManualCompaction",
            target: "idle",
            actions: { type: "recordResult", params: ({ event }) => ({ result: event.output }) },
          },
          { target: "idle" },
        ],
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle", actions: "recordAbort" } },
    },
    branchSummary: {
      description: "Moves to another entry of the session tree, summarising the branch left if asked.",
      invoke: {
        id: "navigation",
        src: "navigate",
        // Only NAVIGATE enters `branchSummary`, so the operation is a navigation.
        input: ({ context }) => context.operation as NavigateOperation,
        onDone: {
          target: "idle",
          actions: { type: "recordResult", params: ({ event }) => ({ result: event.output }) },
        },
        onError: {
          target: "idle",
          actions: { type: "recordFailure", params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { ABORT: { target: "idle", actions: "recordAbort" } },
    },
  },
});

/**
 * The prompt operation of `messages`: the last message is the prompt, whose text and images
 * `before_agent_start` sees.
 *
 * Contract: pure; never throws (no user message: an empty prompt).
 */
export function promptOperationOf(messages: AgentMessage[]): PromptOperation {
  const last = messages.at(-1);
  const content = last?.role === "user" ? last.content : "";
  if (typeof content === "string") return { kind: "prompt", messages, prompt: content, images: [] };
  return {
    kind: "prompt",
    messages,
    prompt: content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
    images: content.filter((part): part is ImageContent => part.type === "image"),
  };
}
