/**
 * Model-based tests of a composed agent tree: a root `Agent` with one agent tool whose child agent
 * has one approval tool (`composed-rig.ts`). `composed-model.ts` models both levels at once; for every
 * edge of its adjacency map (xstate/graph) a test drives the real tree along the shortest path to the
 * edge's source state and across the edge, comparing the real actors of both levels with the model
 * after every step, then ends the run and checks the invariants of every level
 * (`composed-invariants.ts`). Then, at every reachable state, the tree is persisted as JSON, stopped,
 * restored with `Agent.restore` and fresh tool definitions, finished, and checked the same way.
 * Transition coverage is recorded per level (the root and its call; the child and its call) and must
 * reach every transition of both machines except the documented ones this composition cannot take.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { agentMachine } from "../../src/machines/agent/agent.machine.js";
import { toolCallMachine } from "../../src/machines/tool-call/tool-call.machine.js";
import { createTransitionCoverage } from "../../src/testing/transition-coverage.js";
import { edgeCases, stateCases } from "../model-based/edges.js";
import { expectTreeInvariants } from "./composed-invariants.js";
import {
  applyComposedEvent,
  type ComposedEvent,
  type ComposedState,
  composedEvents,
  composedModel,
  describeComposedState,
  observeTree,
  projectTree,
} from "./composed-model.js";
import { ComposedRig } from "./composed-rig.js";

const machines = { agentMachine, toolCallMachine };
const levels = { root: createTransitionCoverage(machines), child: createTransitionCoverage(machines) };

// Each actor's depth, from its `xstate.init` inspection event (whose source is its parent).
const depths = new WeakMap<object, number>();

/** Root agent: depth 0, its calls 1; the child agent: 2, its calls 3. */
function inspect(event: InspectionEvent): void {
  if (event.type === "@xstate.event" && event.event.type === "xstate.init")
    depths.set(event.actorRef, event.sourceRef ? (depths.get(event.sourceRef) ?? 0) + 1 : 0);
  if (event.type !== "@xstate.microstep") return;
  ((depths.get(event.actorRef) ?? 0) < 2 ? levels.root : levels.child).record(event);
}

type Level = keyof typeof levels;

/**
 * The transitions this composition takes at each level (the root agent's reply events go to its
 * listeners directly, without the `REPLY_EVENTS` transition; a child's climb through it), which the tests must all take. What is left
 * out is outside the composition: guardrails, typed output, client tools, tool hooks, between-turn
 * callbacks and their failures, `FAIL`, `CONTINUE`/`RESUME_CALLS`/setters; approval at the root (its
 * agent tool needs none) and agent tools in the child; refusals by the sub-agent limits
 * (test/subagents/composed-scenarios.test.ts). `preparingTurn` and the call's transient states
 * (`startingAgent`, `collecting`) are left within a macrostep here, so no restore finds an agent
 * there; only an abort from a listener of `turn_end` (ARM_ABORT) does. At the child that abort is not
 * taken either: the child is stopped before it handles it (the known gap in `composed-invariants.ts`;
 * once fixed, "agent.preparingTurn: ABORT → agent.idle" belongs to the child's list too).
 */
const COMPOSITION: Record<Level, Record<"agentMachine" | "toolCallMachine", string[]>> = {
  root: {
    agentMachine: [
      "agent.idle: PROMPT → agent.running",
      "agent.running.executingTools: RESUME → (stays)",
      "agent.running.executingTools: TOOL_PREPARED → (stays)",
      "agent.running.executingTools: always [batchSettled] → agent.running.preparingTurn",
      "agent.running.executingTools: xstate.done.actor.* → (stays)",
      "agent.running.preparingTurn.deciding: DECIDED [planStreams] → agent.running.preparingTurn.injecting",
      "agent.running.preparingTurn.deciding: DECIDED → agent.idle",
      "agent.running.preparingTurn.injecting: INJECT → agent.running.preparingTurn.injecting",
      "agent.running.preparingTurn.injecting: always [inboxEmpty] → agent.running.streaming",
      "agent.running.streaming: REPLY_STREAMED [replyFailed] → agent.idle",
      "agent.running.streaming: REPLY_STREAMED [replyHasToolCalls] → agent.running.executingTools",
      "agent.running.streaming: REPLY_STREAMED → agent.running.preparingTurn",
      "agent.running.streaming: RESUME → agent.running.streaming",
      "agent.running: ABORT [abortWaitsForStream] → (stays)",
      "agent.running: ABORT [replyRecorded] → (stays)",
      "agent.running: ABORT → agent.idle",
      "agent.running: RUN_ABORTED [replyRecorded] → agent.idle",
      "agent: FOLLOW_UP → (stays)",
      "agent: STEER → (stays)",
      "agent: SUB_AGENT_EVENTS → (stays)",
    ],
    toolCallMachine: [
      "toolCall.collecting: xstate.done.actor.collectSubAgent → toolCall.settled",
      "toolCall.delegating: ABORT → (stays)",
      "toolCall.delegating: SUB_AGENT_ENDED → toolCall.collecting",
      "toolCall.preparing.ready: EXECUTE [agentTool] → toolCall.startingAgent",
      "toolCall.preparing.validating: VALIDATED → toolCall.preparing.ready",
      "toolCall.startingAgent: SUB_AGENT_READY → toolCall.delegating",
      "toolCall: AGENT_EVENTS → (stays)",
    ],
  },
  child: {
    agentMachine: [
      "agent.idle: PROMPT → agent.running",
      "agent.running.executingTools.awaitingHuman: always [noCallWaits] → agent.running.executingTools.working",
      "agent.running.executingTools.working: always [callWaits] → agent.running.executingTools.awaitingHuman",
      "agent.running.executingTools: APPROVE_TOOL [toolCallRunning] → (stays)",
      "agent.running.executingTools: DENY_TOOL [toolCallRunning] → (stays)",
      "agent.running.executingTools: RESUME → (stays)",
      "agent.running.executingTools: TOOL_AWAITING_APPROVAL → (stays)",
      "agent.running.executingTools: TOOL_PREPARED → (stays)",
      "agent.running.executingTools: always [batchSettled] → agent.running.preparingTurn",
      "agent.running.executingTools: xstate.done.actor.* → (stays)",
      "agent.running.preparingTurn.deciding: DECIDED [planStreams] → agent.running.preparingTurn.injecting",
      "agent.running.preparingTurn.deciding: DECIDED → agent.idle",
      "agent.running.preparingTurn.injecting: INJECT → agent.running.preparingTurn.injecting",
      "agent.running.preparingTurn.injecting: always [inboxEmpty] → agent.running.streaming",
      "agent.running.streaming: REPLY_EVENTS → (stays)",
      "agent.running.streaming: REPLY_STREAMED [replyFailed] → agent.idle",
      "agent.running.streaming: REPLY_STREAMED [replyHasToolCalls] → agent.running.executingTools",
      "agent.running.streaming: REPLY_STREAMED → agent.running.preparingTurn",
      "agent.running.streaming: RESUME → agent.running.streaming",
      "agent.running: ABORT [replyRecorded] → (stays)",
      "agent.running: ABORT → agent.idle",
      "agent.running: RUN_ABORTED [replyRecorded] → agent.idle",
      "agent: FOLLOW_UP → (stays)",
      "agent: STEER → (stays)",
    ],
    toolCallMachine: [
      "toolCall.awaitingApproval: APPROVE → toolCall.executing",
      "toolCall.awaitingApproval: DENY → toolCall.settled",
      "toolCall.awaitingApproval: REANNOUNCE → toolCall.awaitingApproval",
      "toolCall.executing: RESUME → toolCall.executing",
      "toolCall.executing: TOOL_EXECUTED → toolCall.settled",
      "toolCall.preparing.ready: EXECUTE [needsApproval] → toolCall.awaitingApproval",
      "toolCall.preparing.validating: VALIDATED → toolCall.preparing.ready",
    ],
  },
};

const edges = edgeCases<ComposedState, ComposedEvent>(composedModel, composedEvents, describeComposedState);
const states = stateCases<ComposedState, ComposedEvent>(
  composedModel,
  composedEvents,
  describeComposedState,
).filter((c) => c.state.status !== "done");
const replays = ["never", "safe"] as const;
const expectedTests = edges.length + states.length * replays.length;
let testsRun = 0;

describe("an agent tree (root → agent tool → child → approval tool), edge by edge", () => {
  it.each(edges)("$name", async ({ initial, path, source, event, target }) => {
    testsRun++;
    const rig = new ComposedRig({ replay: "never", inspect });
    expect(observeTree(rig)).toEqual(projectTree(initial));
    for (const step of path) {
      await applyComposedEvent(rig, step.event);
      expect(observeTree(rig), `after ${step.event.type}`).toEqual(projectTree(step.state));
    }
    expect(observeTree(rig)).toEqual(projectTree(source));
    await applyComposedEvent(rig, event);
    expect(observeTree(rig)).toEqual(projectTree(target));
    await rig.finish();
    expectTreeInvariants(rig);
  });
});

describe.each(replays)(
  "persist/restore of the agent tree at every reachable state, refund replay %s",
  (replay) => {
    it.each(states)("restored in $name", async ({ path }) => {
      testsRun++;
      const rig = new ComposedRig({ replay, inspect });
      for (const step of path) await applyComposedEvent(rig, step.event);
      const running = observeTree(rig).root !== "idle";
      const child = rig.childPath();
      rig.restoreHere();
      await rig.runToCompletion();
      await rig.finish();
      expectTreeInvariants(rig);
      // Every agent of the tree that was running goes on by itself: the root, then the child if one ran.
      const resumes = rig.events
        .filter((e) => e.type === "agent_resume")
        .map((e) => (e.agentPath ?? []).join("/"));
      expect(resumes).toEqual(running ? ["", ...(child ? [child.join("/")] : [])] : []);
    });
  },
);

// Runs after every test above; with a filter (`-t`) only the figures are printed.
afterAll(() => {
  const taken: Record<string, string[]> = {};
  const expected: Record<string, string[]> = {};
  for (const [level, coverage] of Object.entries(levels))
    for (const name of ["agentMachine", "toolCallMachine"] as const) {
      const report = coverage.report(name).transitions;
      console.log(`${level} ${name} transitions taken: ${report.taken.length}/${report.total}`);
      taken[`${level} ${name}`] = report.taken.sort();
      expected[`${level} ${name}`] = [...COMPOSITION[level as Level][name]].sort();
    }
  if (testsRun === expectedTests) expect(taken).toEqual(expected);
});
