import { afterAll, describe, expect, it } from "vitest";
import type { SnapshotFrom } from "xstate";
import { agentLoopMachine } from "../../src/machines/agent-loop.machine.js";
import { toolCallMachine } from "../../src/machines/tool-call.machine.js";
import type { SteeringPolicy } from "../../src/types/loop.js";
import type { UserMessage } from "../../src/types/messages.js";
import { createTransitionCoverage } from "./coverage.js";
import { edgeCases } from "./edges.js";
import { expectRunInvariants } from "./invariants.js";
import { applyLoopEvent, describeLoopState, observeLoop, projectLoop } from "./loop.driver.js";
import { createLoopModel, type LoopModel, type LoopModelEvent, loopModelEvents } from "./loop.model.js";
import { LoopRig } from "./real-loop.js";
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
  "toolCall.preparing.checking: xstate.error.actor.0.toolCall.preparing.checking → toolCall.settled":
    "preflightToolCall catches every failure (unknown tool, prepareArguments, validation, beforeToolCall)",
  "toolCall.executing: xstate.error.actor.0.toolCall.executing → toolCall.finalizing":
    "executeToolCall turns a throwing or malformed tool into an error outcome",
  "toolCall.finalizing: xstate.error.actor.0.toolCall.finalizing → toolCall.settled":
    "finalizeToolCall turns a throwing afterToolCall into an error outcome",
};

type LoopState = SnapshotFrom<LoopModel>;
type ToolCallState = SnapshotFrom<ToolCallModel>;

describe.each<SteeringPolicy>(["afterToolBatch", "betweenTools"])(
  "agentLoopMachine, steering %s",
  (policy) => {
    const cases = edgeCases<LoopState, LoopModelEvent>(
      createLoopModel(policy),
      loopModelEvents,
      describeLoopState,
    );

    it.each(cases)("$name", async ({ initial, path, source, event, target }) => {
      const rig = new LoopRig({ steering: policy, inspect });
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

describe("toolCallMachine (call t1 of a parallel batch [t1, t2])", () => {
  const cases = edgeCases<ToolCallState, ToolCallModelEvent>(
    toolCallModel,
    toolCallModelEvents,
    describeToolCallState,
  );

  it.each(cases)("$name", async ({ initial, path, source, event, target }) => {
    const rig = await startToolCallRun({ inspect });
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
