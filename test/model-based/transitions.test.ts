/**
 * Model-based tests of the loop statecharts. `loop.model.ts` and `tool-call.model.ts` mirror
 * `agentLoopMachine` and `toolCallMachine` without actors; for every edge of a model's adjacency map
 * (xstate/graph), a test drives the real loop (`real-loop.ts`: real machines and actors, a scripted
 * model, tools and hooks the test completes) along the shortest path to the edge's source state and
 * across the edge, comparing the real actor with the model after every step, then ends the run and
 * checks the run invariants (`invariants.ts`). An inspection observer records which transitions of the
 * real machines were taken; the last test requires all of them but the documented unreachable ones.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { SnapshotFrom } from "xstate";
import { agentLoopMachine } from "../../src/machines/agent-loop.machine.js";
import { toolCallMachine } from "../../src/machines/tool-call.machine.js";
import { createTransitionCoverage, machineTransitions, transitionLabel } from "./coverage.js";
import { edgeCases } from "./edges.js";
import { expectRunInvariants } from "./invariants.js";
import { applyLoopEvent, describeLoopState, observeLoop, projectLoop } from "./loop.driver.js";
import { createLoopModel, type LoopModel, type LoopModelEvent, loopModelEvents } from "./loop.model.js";
import { LoopRig, settle } from "./real-loop.js";
import {
  applyToolCallEvent,
  describeToolCallState,
  observeToolCall,
  projectToolCall,
  startToolCallRun,
} from "./tool-call.driver.js";
import {
  type ToolCallModel,
  type ToolCallModelEvent,
  toolCallModel,
  toolCallModelEvents,
} from "./tool-call.model.js";

const coverage = createTransitionCoverage({ agentLoopMachine, toolCallMachine });
const inspect = coverage.record;

/**
 * Transitions no run of the real implementation can take, with the reason. Each is the `onError` of an
 * invoked promise actor whose function is written never to reject (every failure becomes an error
 * message or an error tool result); the handlers stay as a safety net.
 */
const UNREACHABLE: Record<string, string> = {
  "agentLoop.streaming: xstate.error.actor.stream → agentLoop.done":
    "streamReply only ever resolves: provider failures and aborts become an assistant message",
  "agentLoop.executingTools: xstate.error.actor.* → (stays)":
    "tool-call children cannot fail: they invoke no actors and their steps turn every failure into an error outcome; the handler stays because an unhandled child error would stop the loop",
};

type LoopState = SnapshotFrom<LoopModel>;
type ToolCallState = SnapshotFrom<ToolCallModel>;

const loopVariants = (["afterToolBatch", "betweenTools"] as const).flatMap((policy) =>
  (["parallel", "sequential"] as const).map((execution) => ({ policy, execution })),
);

describe.each(loopVariants)(
  "agentLoopMachine, steering $policy, $execution tools",
  ({ policy, execution }) => {
    const cases = edgeCases<LoopState, LoopModelEvent>(
      createLoopModel(policy, execution),
      loopModelEvents,
      describeLoopState,
    );

    it.each(cases)("$name", async ({ initial, path, source, event, target }) => {
      const rig = new LoopRig({ steering: policy, toolExecution: execution, inspect });
      const batchTurn = { n: 0 };
      expect(observeLoop(rig)).toEqual(projectLoop(initial));
      for (const step of path) {
        await applyLoopEvent(rig, step.event, batchTurn);
        expect(observeLoop(rig), `after ${step.event.type}`).toEqual(projectLoop(step.state));
      }
      expect(observeLoop(rig)).toEqual(projectLoop(source));
      await applyLoopEvent(rig, event, batchTurn);
      expect(observeLoop(rig)).toEqual(projectLoop(target));
      await rig.finish();
      expectRunInvariants(rig);
    });
  },
);

describe.each(["loop", "agent"] as const)("toolCallMachine (t1 of a batch [t1, t2]), run by %s", (entry) => {
  const cases = edgeCases<ToolCallState, ToolCallModelEvent>(
    toolCallModel,
    toolCallModelEvents,
    describeToolCallState,
  );

  it.each(cases)("$name", async ({ initial, path, source, event, target }) => {
    const rig = await startToolCallRun({ inspect, entry });
    expect(observeToolCall(rig)).toEqual(projectToolCall(initial));
    for (const step of path) {
      await applyToolCallEvent(rig, step.event);
      expect(observeToolCall(rig), `after ${step.event.type}`).toEqual(projectToolCall(step.state));
    }
    expect(observeToolCall(rig)).toEqual(projectToolCall(source));
    await applyToolCallEvent(rig, event);
    expect(observeToolCall(rig)).toEqual(projectToolCall(target));
    await rig.finish();
    expectRunInvariants(rig);
  });
});

/** Drives a rig with model events (the same driver as the generated tests). */
function stepper(rig: LoopRig) {
  const batchTurn = { n: 0 };
  return async (...events: LoopModelEvent[]) => {
    for (const event of events) await applyLoopEvent(rig, event, batchTurn);
  };
}
const START: LoopModelEvent[] = [{ type: "START" }, { type: "DECIDE", outcome: "answer" }];
const contains = (messages: unknown[], message: unknown) => messages.includes(message);

describe("transitions the models do not reach", () => {
  // A between-tools poll that answers asynchronously can land after the batch settled: the loop's
  // root STEERING.ARRIVED handler keeps the messages for the next turn it prepares.
  async function lateSteering() {
    const rig = new LoopRig({ steering: "betweenTools", holdBetweenToolsPolls: true, inspect });
    const step = stepper(rig);
    await step(...START, { type: "REPLY", kind: "tools" }, { type: "STEER" });
    await step(
      { type: "TOOL_SETTLED", call: "a", result: "ok" },
      { type: "TOOL_SETTLED", call: "b", result: "ok" },
    );
    expect(observeLoop(rig).value).toBe("preparingTurn");
    const steering = rig.queued[0]!;
    rig.answerPoll(rig.toolPolls, "answer");
    await settle(rig);
    expect(rig.queues.steering).toEqual([]);
    expect(observeLoop(rig).value).toBe("preparingTurn");
    return { rig, step, steering };
  }

  it("late between-tools steering is injected into the turn after the one being prepared", async () => {
    const { rig, step, steering } = await lateSteering();
    await step({ type: "DECIDE", outcome: "answer" }, { type: "REPLY", kind: "text" });
    expect(contains(rig.modelCalls[1]!.messages, steering)).toBe(false);
    await step({ type: "DECIDE", outcome: "answer" });
    expect(observeLoop(rig).value).toBe("streaming");
    expect(contains(rig.modelCalls[2]!.messages, steering)).toBe(true);
    await step({ type: "REPLY", kind: "text" }, { type: "DECIDE", outcome: "answer" });
    expect(observeLoop(rig).value).toBe("done");
    expectRunInvariants(rig);
  });

  it("late between-tools steering goes back to its queue when the run is aborted", async () => {
    const { rig, steering } = await lateSteering();
    rig.abort("event");
    await rig.finish();
    expect(rig.queues.steering).toEqual([steering]);
    expectRunInvariants(rig);
  });
});

describe("transition coverage", () => {
  it("names every transition of both machines uniquely", () => {
    for (const machine of [agentLoopMachine, toolCallMachine]) {
      const labels = machineTransitions(machine).map(transitionLabel);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });

  // Runs after every test above: a new transition that no test takes fails here.
  it("took every transition except the documented unreachable ones", () => {
    const missed = ["agentLoopMachine", "toolCallMachine"].flatMap((name) => coverage.report(name).missed);
    expect(missed.sort()).toEqual(Object.keys(UNREACHABLE).sort());
  });
});

afterAll(() => {
  for (const name of ["agentLoopMachine", "toolCallMachine"]) {
    const { taken, total, missed } = coverage.report(name);
    const reasons = missed.map(
      (label) => `\n  not taken: ${label} (${UNREACHABLE[label] ?? "NOT DOCUMENTED"})`,
    );
    console.log(`${name} transitions covered: ${taken.length}/${total}${reasons.join("")}`);
  }
});
