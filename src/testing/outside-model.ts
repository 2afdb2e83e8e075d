import { assign, setup } from "xstate";
import type { ScriptedReply } from "../providers/scripted/scripted-reply.js";

/**
 * Where a tool call of the current batch stands, as the outside world sees it: waiting for a human's
 * decision, running (its `execute` waits for the test), waiting for the client's answer, or answered.
 */
export type OutsideCallPhase = "approval" | "running" | "client" | "answered";

/** What the outside model knows of one scripted tool call: its id and the phase it starts in. */
export interface ScriptedCall {
  id: string;
  /** `approval` (its tool requires approval for these arguments), `client` or `running`. */
  start: "approval" | "client" | "running";
  /** A client tool that needs approval goes on to `client` once approved. */
  client: boolean;
}

/** The abstract model's view of the user's agent: the script, its calls, what can happen outside. */
export interface OutsideWorld {
  /** The model's replies in order, each with the calls it makes (`[]` for a text reply). */
  replies: { reply: ScriptedReply; calls: ScriptedCall[] }[];
  /** The agent has output guardrails: every reply waits for a verdict. */
  guardrails: boolean;
  /** Which of the optional outside events to explore. */
  explore: Required<OutsideEventSwitches>;
  /** Names of the user's own commands (each sent at most once per path, while a run is on). */
  commands: string[];
}

/** The outside events the exploration may take, each on by default. */
export interface OutsideEventSwitches {
  /** `ABORT` in every running state. */
  abort?: boolean;
  /** A steering message queued while the run is on. */
  steer?: boolean;
  /** A follow-up message queued while the run is on. */
  followUp?: boolean;
  /** The model answers a call with an error instead of its scripted reply. */
  modelError?: boolean;
  /** A running tool throws instead of finishing. */
  toolThrows?: boolean;
  /** A call waiting for approval is denied (approving is always explored). */
  deny?: boolean;
}

/** One outside event of the abstract model (what the test does, or makes the model or a tool do). */
export type OutsideEvent =
  | { type: "PROMPT" }
  | { type: "REPLY" }
  | { type: "MODEL_ERROR" }
  | { type: "GUARDRAIL"; verdict: "pass" | "trip" }
  | { type: "APPROVE"; call: string }
  | { type: "DENY"; call: string }
  | { type: "TOOL_DONE"; call: string }
  | { type: "TOOL_THROWS"; call: string }
  | { type: "CLIENT_ANSWER"; call: string }
  | { type: "ABORT" }
  | { type: "STEER" }
  | { type: "FOLLOW_UP" }
  | { type: "COMMAND"; name: string };

export interface OutsideContext {
  /** Replies the model gave so far (the next one is `replies[turn]`). */
  turn: number;
  /** The current batch's calls by id (empty outside `executingTools`). */
  calls: Record<string, OutsideCallPhase>;
  steerQueued: boolean;
  followUpQueued: boolean;
  /** The user's commands this path already sent. */
  sent: string[];
}

const callsOf = (context: OutsideContext, phase: OutsideCallPhase) =>
  Object.keys(context.calls).filter((id) => context.calls[id] === phase);

/**
 * Every event the model may take in `state`, payloads included (xstate/graph asks per state); the
 * machine's own guards then keep those it accepts.
 */
export function outsideEvents(world: OutsideWorld, state: { value: unknown; context: OutsideContext }) {
  const { context } = state;
  const phase = state.value as string;
  const events: OutsideEvent[] = [];
  const running = phase === "streaming" || phase === "checking" || phase === "executingTools";
  if (phase === "idle") events.push({ type: "PROMPT" });
  if (phase === "streaming") {
    if (context.turn < world.replies.length) events.push({ type: "REPLY" });
    if (world.explore.modelError) events.push({ type: "MODEL_ERROR" });
  }
  if (phase === "checking")
    events.push({ type: "GUARDRAIL", verdict: "pass" }, { type: "GUARDRAIL", verdict: "trip" });
  for (const call of callsOf(context, "approval")) {
    events.push({ type: "APPROVE", call });
    if (world.explore.deny) events.push({ type: "DENY", call });
  }
  for (const call of callsOf(context, "running")) {
    events.push({ type: "TOOL_DONE", call });
    if (world.explore.toolThrows) events.push({ type: "TOOL_THROWS", call });
  }
  for (const call of callsOf(context, "client")) events.push({ type: "CLIENT_ANSWER", call });
  if (running) {
    if (world.explore.steer && !context.steerQueued) events.push({ type: "STEER" });
    if (world.explore.followUp && !context.followUpQueued) events.push({ type: "FOLLOW_UP" });
    for (const name of world.commands)
      if (!context.sent.includes(name)) events.push({ type: "COMMAND", name });
    if (world.explore.abort) events.push({ type: "ABORT" });
  }
  return events;
}

/**
 * The abstract model of one run of the user's agent as the outside world drives it: a prompt, the
 * model's scripted replies (or an error), guardrail verdicts, decisions and answers for tool calls,
 * aborts, queued messages and the user's commands. Its context is bounded (the script's length, one
 * queued message of each kind, each command once), so the graph is finite.
 *
 * Contract: pure (no actors); `world` must come from a checked script (`createAgentTestModel`).
 */
export function createOutsideModel(world: OutsideWorld) {
  const replyAt = (context: OutsideContext) => world.replies[context.turn - 1]!;
  const callOf = (event: OutsideEvent) => (event as { call: string }).call;
  const callIs =
    (phase: OutsideCallPhase) =>
    ({ context, event }: { context: OutsideContext; event: OutsideEvent }) =>
      context.calls[callOf(event)] === phase;
  const moveCall = (phase: OutsideCallPhase) =>
    assign<OutsideContext, OutsideEvent, undefined, OutsideEvent, never>({
      calls: ({ context, event }) => ({ ...context.calls, [callOf(event)]: phase }),
    });
  return setup({
    types: { context: {} as OutsideContext, events: {} as OutsideEvent },
    guards: {
      scriptLeft: ({ context }) => context.turn < world.replies.length,
      checked: ({ context }) => context.turn < world.replies.length && world.guardrails,
      passes: ({ event }) => event.type === "GUARDRAIL" && event.verdict === "pass",
      replyCallsTools: ({ context }) => replyAt(context).calls.length > 0,
      steerQueued: ({ context }) => context.steerQueued,
      steerFree: ({ context }) => !context.steerQueued,
      followUpQueued: ({ context }) => context.followUpQueued,
      followUpFree: ({ context }) => !context.followUpQueued,
      awaitsApproval: callIs("approval"),
      awaitsClientAfterApproval: ({ context, event }) =>
        context.calls[callOf(event)] === "approval" &&
        replyAt(context).calls.find((call) => call.id === callOf(event))!.client,
      isRunning: callIs("running"),
      awaitsClient: callIs("client"),
      batchAnswered: ({ context }) => Object.values(context.calls).every((phase) => phase === "answered"),
    },
    actions: {
      takeReply: assign({ turn: ({ context }) => context.turn + 1 }),
      startBatch: assign({
        calls: ({ context }) =>
          Object.fromEntries(
            replyAt(context).calls.map((call): [string, OutsideCallPhase] => [call.id, call.start]),
          ),
      }),
      endBatch: assign({ calls: {} }),
      queueSteer: assign({ steerQueued: true }),
      deliverSteer: assign({ steerQueued: false }),
      queueFollowUp: assign({ followUpQueued: true }),
      deliverFollowUp: assign({ followUpQueued: false }),
      recordCommand: assign({
        sent: ({ context, event }) => [...context.sent, (event as { name: string }).name],
      }),
      approveCall: moveCall("running"),
      approveClientCall: moveCall("client"),
      answerCall: moveCall("answered"),
    },
  }).createMachine({
    id: "outside",
    context: { turn: 0, calls: {}, steerQueued: false, followUpQueued: false, sent: [] },
    initial: "idle",
    on: {
      // Handled in every state; `outsideEvents` offers them only while a run is on.
      ABORT: ".done",
      STEER: { guard: "steerFree", actions: "queueSteer" },
      FOLLOW_UP: { guard: "followUpFree", actions: "queueFollowUp" },
      COMMAND: { actions: "recordCommand" },
    },
    states: {
      idle: {
        description: "The agent waits for a prompt.",
        on: { PROMPT: "streaming" },
      },
      streaming: {
        description: "A model call waits for the test: the next scripted reply, or an error.",
        on: {
          REPLY: [
            { guard: "checked", target: "checking", actions: "takeReply" },
            { guard: "scriptLeft", target: "replied", actions: "takeReply" },
          ],
          MODEL_ERROR: "done",
        },
      },
      checking: {
        description: "The output guardrails wait for the test's verdict on the reply.",
        on: { GUARDRAIL: [{ guard: "passes", target: "replied" }, { target: "done" }] },
      },
      replied: {
        description: "A reply passed: its calls run, or queued messages start another turn, or the run ends.",
        always: [
          { guard: "replyCallsTools", target: "executingTools", actions: "startBatch" },
          { guard: "steerQueued", target: "streaming", actions: "deliverSteer" },
          { guard: "followUpQueued", target: "streaming", actions: "deliverFollowUp" },
          { target: "done" },
        ],
      },
      executingTools: {
        description: "The reply's tool calls wait for decisions, their tools or the client.",
        exit: "endBatch",
        always: { guard: "batchAnswered", target: "streaming", actions: "deliverSteer" },
        on: {
          APPROVE: [
            { guard: "awaitsClientAfterApproval", actions: "approveClientCall" },
            { guard: "awaitsApproval", actions: "approveCall" },
          ],
          DENY: { guard: "awaitsApproval", actions: "answerCall" },
          TOOL_DONE: { guard: "isRunning", actions: "answerCall" },
          TOOL_THROWS: { guard: "isRunning", actions: "answerCall" },
          CLIENT_ANSWER: { guard: "awaitsClient", actions: "answerCall" },
        },
      },
      done: { type: "final", description: "The run ended: the agent is idle again." },
    },
  });
}

/** The abstract model's machine type. */
export type OutsideModel = ReturnType<typeof createOutsideModel>;
