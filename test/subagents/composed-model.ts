import { assign, type SnapshotFrom, setup } from "xstate";
import { unwrapRunning } from "../support/run-value.js";
import { type ChildReply, type ComposedRig, type Level, type RootReply, settleTree } from "./composed-rig.js";

/**
 * An abstract model of a two-level agent tree for one run of the root (`composed-rig.ts`): the root
 * agent (`idle` → `streaming` → `delegating`, its one agent tool call running a child → `streaming` …
 * → `done`) and, while it delegates, the child agent (`child`: streaming, its refund call awaiting
 * approval or executing). Neither agent has between-turn callbacks, so `preparingTurn` is left within
 * a macrostep and is no state here. What the real actors do on their own (stream a reply, run the
 * refund) happens only when the test says so, through an explicit event.
 *
 * Queues: each agent takes one queued steering message per turn ("one-at-a-time"), also at run start
 * and before the reply that follows its tool results; a follow-up only when it would otherwise stop.
 * A child's run that ends with an error takes its queues with it. A listener armed to abort at the next
 * `turn_end` (of the root or the child) catches that agent in `preparingTurn`: the whole tree stops.
 * The context is flags only, so the graph is finite.
 */

export type ChildPhase = "none" | "streaming" | "approval" | "executing";

export interface ComposedContext {
  child: ChildPhase;
  rootSteer: boolean;
  rootFollow: boolean;
  childSteer: boolean;
  childFollow: boolean;
  /** A listener aborts the root at the next turn end (in `preparingTurn`, between two turns). */
  abortArmed: boolean;
}

export type ComposedEvent =
  | { type: "START" }
  | { type: "ROOT_REPLY"; kind: RootReply }
  | { type: "CHILD_REPLY"; kind: ChildReply }
  | { type: "APPROVE" }
  | { type: "DENY" }
  | { type: "REFUND_DONE" }
  /** `agent.abort()` on the root: the whole tree stops. */
  | { type: "ABORT" }
  /** A listener will call `agent.abort()` at the next `turn_end` of any agent of the tree. */
  | { type: "ARM_ABORT" }
  | { type: "STEER"; level: Level }
  | { type: "FOLLOW_UP"; level: Level };

export const composedEvents: ComposedEvent[] = [
  { type: "START" },
  ...(["text", "delegate", "error"] as const).map((kind): ComposedEvent => ({ type: "ROOT_REPLY", kind })),
  ...(["text", "approval", "error"] as const).map((kind): ComposedEvent => ({ type: "CHILD_REPLY", kind })),
  { type: "APPROVE" },
  { type: "DENY" },
  { type: "REFUND_DONE" },
  { type: "ABORT" },
  { type: "ARM_ABORT" },
  ...(["root", "child"] as const).flatMap((level): ComposedEvent[] => [
    { type: "STEER", level },
    { type: "FOLLOW_UP", level },
  ]),
];

const queueFlag = (event: ComposedEvent): keyof ComposedContext =>
  event.type === "STEER"
    ? event.level === "root"
      ? "rootSteer"
      : "childSteer"
    : (event as { level: Level }).level === "root"
      ? "rootFollow"
      : "childFollow";

const queueEvents = {
  STEER: { guard: "canQueue", actions: "queue" },
  FOLLOW_UP: { guard: "canQueue", actions: "queue" },
  ARM_ABORT: { guard: ({ context }: { context: ComposedContext }) => !context.abortArmed, actions: "arm" },
} as const;

/** The event ends a turn (of either agent) while a listener waits to abort there. */
const abortsAtTurnEnd = { guard: "endsTurnArmed", target: "done" } as const;

const isReply = (type: "ROOT_REPLY" | "CHILD_REPLY", kind: string) => (event: ComposedEvent) =>
  event.type === type && event.kind === kind;

export const composedModel = setup({
  types: { context: {} as ComposedContext, events: {} as ComposedEvent },
  guards: {
    endsTurnArmed: ({ context, event }) =>
      context.abortArmed &&
      ((event.type === "ROOT_REPLY" && event.kind !== "delegate") ||
        (event.type === "CHILD_REPLY" && context.child === "streaming" && event.kind !== "approval") ||
        (event.type === "DENY" && context.child === "approval") ||
        (event.type === "REFUND_DONE" && context.child === "executing")),
    canQueue: ({ context, event }) =>
      (event.type === "STEER" || event.type === "FOLLOW_UP") &&
      (event.level === "root" || context.child !== "none") &&
      !context[queueFlag(event)],
  },
  actions: {
    arm: assign({ abortArmed: true }),
    queue: assign(({ event }) => ({ [queueFlag(event)]: true })),
    // The child's run ended: the root's turn follows its tool result, taking one steering message.
    childEnds: assign({ child: "none", childSteer: false, childFollow: false, rootSteer: false }),
  },
}).createMachine({
  id: "composed",
  context: {
    child: "none",
    rootSteer: false,
    rootFollow: false,
    childSteer: false,
    childFollow: false,
    abortArmed: false,
  },
  initial: "idle",
  states: {
    idle: {
      on: {
        ...queueEvents,
        START: { target: "streaming", actions: assign({ rootSteer: false }) },
      },
    },
    streaming: {
      on: {
        ...queueEvents,
        ABORT: "done",
        ROOT_REPLY: [
          abortsAtTurnEnd,
          {
            guard: ({ event, context }) => isReply("ROOT_REPLY", "text")(event) && context.rootSteer,
            target: "streaming",
            reenter: true,
            actions: assign({ rootSteer: false }),
          },
          {
            guard: ({ event, context }) => isReply("ROOT_REPLY", "text")(event) && context.rootFollow,
            target: "streaming",
            reenter: true,
            actions: assign({ rootFollow: false }),
          },
          { guard: ({ event }) => isReply("ROOT_REPLY", "text")(event), target: "done" },
          {
            guard: ({ event }) => isReply("ROOT_REPLY", "delegate")(event),
            target: "delegating",
            actions: assign({ child: "streaming" }),
          },
          { guard: ({ event }) => isReply("ROOT_REPLY", "error")(event), target: "done" },
        ],
      },
    },
    delegating: {
      on: {
        ...queueEvents,
        ABORT: "done",
        CHILD_REPLY: [
          abortsAtTurnEnd,
          {
            guard: ({ event, context }) =>
              context.child === "streaming" && isReply("CHILD_REPLY", "text")(event) && context.childSteer,
            actions: assign({ childSteer: false }),
          },
          {
            guard: ({ event, context }) =>
              context.child === "streaming" && isReply("CHILD_REPLY", "text")(event) && context.childFollow,
            actions: assign({ childFollow: false }),
          },
          {
            guard: ({ event, context }) =>
              context.child === "streaming" &&
              (isReply("CHILD_REPLY", "text")(event) || isReply("CHILD_REPLY", "error")(event)),
            target: "streaming",
            actions: "childEnds",
          },
          {
            guard: ({ event, context }) =>
              context.child === "streaming" && isReply("CHILD_REPLY", "approval")(event),
            actions: assign({ child: "approval" }),
          },
        ],
        APPROVE: {
          guard: ({ context }) => context.child === "approval",
          actions: assign({ child: "executing" }),
        },
        // The child's turn follows its tool result, taking one steering message.
        DENY: [
          abortsAtTurnEnd,
          {
            guard: ({ context }) => context.child === "approval",
            actions: assign({ child: "streaming", childSteer: false }),
          },
        ],
        REFUND_DONE: [
          abortsAtTurnEnd,
          {
            guard: ({ context }) => context.child === "executing",
            actions: assign({ child: "streaming", childSteer: false }),
          },
        ],
      },
    },
    // The root's queued messages stay queued when its run ends; a child's go with it.
    done: {
      type: "final",
      entry: assign({ child: "none", childSteer: false, childFollow: false, abortArmed: false }),
    },
  },
});

export type ComposedModel = typeof composedModel;
export type ComposedState = SnapshotFrom<ComposedModel>;

/** What the test compares between the model and the real tree after every step. */
export interface TreeObservation {
  root: unknown;
  /** The root's agent tool call: its state, and its child agent's state. */
  call?: unknown;
  child?: unknown;
  /** The child's refund call state. */
  refund?: unknown;
  rootQueues: [number, number];
  childQueues?: [number, number];
}

interface NodeSnapshot {
  value?: unknown;
  context?: { steering: unknown[]; followUp: unknown[] };
  children: Record<string, { getSnapshot(): NodeSnapshot } | undefined>;
}

const queues = (snapshot: NodeSnapshot): [number, number] => [
  snapshot.context!.steering.length,
  snapshot.context!.followUp.length,
];

export function observeTree(rig: ComposedRig): TreeObservation {
  const root = rig.agent.actor.getSnapshot() as unknown as NodeSnapshot;
  const observation: TreeObservation = { root: unwrapRunning(root.value), rootQueues: queues(root) };
  const path = rig.childPath();
  if (!path) return observation;
  const call = root.children[path[0]!]!.getSnapshot();
  observation.call = call.value;
  const child = call.children.agent?.getSnapshot();
  if (!child) return observation;
  observation.child = unwrapRunning(child.value);
  observation.childQueues = queues(child);
  const refund = Object.entries(child.children).find(([id]) => /^r\d+$/.test(id))?.[1];
  if (refund) observation.refund = refund.getSnapshot().value;
  return observation;
}

export function projectTree(state: ComposedState): TreeObservation {
  const { context } = state;
  const value = state.value as string;
  const rootQueues: [number, number] = [Number(context.rootSteer), Number(context.rootFollow)];
  if (value === "idle" || value === "done") return { root: "idle", rootQueues };
  if (value === "streaming") return { root: { streaming: "released" }, rootQueues };
  return {
    root: "executingTools",
    call: "delegating",
    child: context.child === "streaming" ? { streaming: "released" } : "executingTools",
    ...(context.child === "approval" ? { refund: "awaitingApproval" } : {}),
    ...(context.child === "executing" ? { refund: "executing" } : {}),
    rootQueues,
    childQueues: [Number(context.childSteer), Number(context.childFollow)],
  };
}

export function describeComposedState(state: ComposedState): string {
  const { context } = state;
  const flags = [
    context.child !== "none" ? `child:${context.child}` : "",
    context.rootSteer ? "steer" : "",
    context.rootFollow ? "followUp" : "",
    context.childSteer ? "childSteer" : "",
    context.childFollow ? "childFollowUp" : "",
    context.abortArmed ? "abortArmed" : "",
  ].filter(Boolean);
  return `${state.value as string}${flags.length ? `{${flags.join(" ")}}` : ""}`;
}

/** Performs one model event on the real tree, then lets it run until it waits for the test again. */
export async function applyComposedEvent(rig: ComposedRig, event: ComposedEvent): Promise<void> {
  switch (event.type) {
    case "START":
      rig.start();
      break;
    case "ROOT_REPLY":
      rig.reply("root", event.kind);
      break;
    case "CHILD_REPLY":
      rig.reply("child", event.kind);
      break;
    case "APPROVE":
      rig.approve();
      break;
    case "DENY":
      rig.deny();
      break;
    case "REFUND_DONE":
      rig.releaseRefund();
      break;
    case "ABORT":
      rig.abort();
      break;
    case "ARM_ABORT":
      rig.abortAtNextTurnEnd = true;
      break;
    case "STEER":
      rig.enqueue("steer", event.level);
      break;
    case "FOLLOW_UP":
      rig.enqueue("followUp", event.level);
      break;
  }
  await settleTree(rig);
}
