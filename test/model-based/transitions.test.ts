/**
 * Model-based tests of the loop statecharts. `loop.model.ts` and `tool-call.model.ts` mirror
 * `agentMachine` and `toolCallMachine` without actors; for every edge of a model's adjacency map
 * (xstate/graph), a test drives the real loop (`real-loop.ts`: real machines and actors, a scripted
 * model, tools and hooks the test completes) along the shortest path to the edge's source state and
 * across the edge, comparing the real actor with the model after every step, then ends the run and
 * checks the run invariants (`invariants.ts`). An inspection observer records which transitions of the
 * real machines were taken; the last test requires all of them but the documented unreachable ones.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createActor, type SnapshotFrom } from "xstate";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { agentMachine } from "../../src/machines/agent/agent.machine.js";
import { createAgentMachine } from "../../src/machines/agent/agent.provided.js";
import { toolCallMachine } from "../../src/machines/tool-call/tool-call.machine.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import {
  createTransitionCoverage,
  machineTransitions,
  transitionLabel,
} from "../../src/testing/transition-coverage.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import { echoTool, testModel, user } from "../support/loop-harness.js";
import { describeBudgetPaths } from "./budget-paths.js";
import { edgeCases, stateCases } from "./edges.js";
import { expectRunInvariants } from "./invariants.js";
import { applyLoopEvent, describeLoopState, observeLoop, projectLoop } from "./loop.driver.js";
import { createLoopModel, type LoopModel, type LoopModelEvent, loopModelEvents } from "./loop.model.js";
import { describeOutputAndGuardrailPaths } from "./output-guardrail-paths.js";
import { LoopRig, settle } from "./real-loop.js";
import { describeSubAgentPaths } from "./sub-agent-paths.js";
import {
  applyToolCallEvent,
  describeToolCallState,
  observeToolCall,
  projectToolCall,
  SUBJECT,
  startToolCallRun,
} from "./tool-call.driver.js";
import {
  type ToolCallModel,
  type ToolCallModelEvent,
  toolCallModel,
  toolCallModelEvents,
} from "./tool-call.model.js";

const coverage = createTransitionCoverage({ agentMachine, toolCallMachine });
const inspect = coverage.record;

/**
 * Transitions no run of the real implementation can take, with the reason. Each is the `onError` of an
 * invoked promise actor whose function is written never to reject (every failure becomes an error
 * message or an error tool result); the handlers stay as a safety net.
 */
const UNREACHABLE: Record<string, string> = {
  "agent.running.streaming: xstate.error.actor.stream → agent.idle":
    "the stream actor never fails: provider failures and aborts become an assistant message",
  "agent.running.streaming.checking: xstate.error.actor.outputGuardrails → agent.idle":
    "runGuardrails only ever resolves: a guardrail that throws or rejects is a trip",
  "agent.running.validatingOutput: xstate.error.actor.validateOutput → agent.idle":
    "validateOutput only ever resolves: a schema whose check throws gives an issue naming the error",
  "agent.running: RUN_ABORTED → agent.idle":
    "sent by ABORT in executingTools/validatingOutput and processed right after the aborted calls' last events, which cannot settle the batch meanwhile (a call's result is collected asynchronously); kept so that a run always ends",
  "agent.running: RUN_FAILED → agent.idle": "as RUN_ABORTED's, for FAIL",
  "agent.running.executingTools: xstate.error.actor.* → (stays)":
    "tool-call children cannot fail: their steps turn every failure into an error outcome; the handler stays because an unhandled child error would stop the agent",
};

type LoopState = SnapshotFrom<LoopModel>;
type ToolCallState = SnapshotFrom<ToolCallModel>;

const loopVariants = (["afterToolBatch", "betweenTools"] as const).flatMap((policy) =>
  (["parallel", "sequential"] as const).map((execution) => ({ policy, execution })),
);

describe.each(loopVariants)("agentMachine, steering $policy, $execution tools", ({ policy, execution }) => {
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
});

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

// Persist/restore at every reachable state: drive the real agent along the shortest path to each
// state of the model, persist it as JSON, stop it, restore it with `Agent.restore` (as another process
// would), let the run finish and check the same run invariants — every tool call answered once, one
// agent_start and one agent_end, no message twice, every queued message delivered once or still queued.
describe.each(loopVariants)(
  "persist/restore of agentMachine, steering $policy, $execution tools",
  ({ policy, execution }) => {
    const cases = stateCases<LoopState, LoopModelEvent>(
      createLoopModel(policy, execution),
      loopModelEvents,
      describeLoopState,
    ).filter((c) => c.state.status !== "done");

    it.each(cases)("restored in $name", async ({ path }) => {
      const rig = new LoopRig({ steering: policy, toolExecution: execution, inspect });
      const batchTurn = { n: 0 };
      for (const step of path) await applyLoopEvent(rig, step.event, batchTurn);
      rig.restoreHere();
      await rig.runToCompletion();
      await rig.finish();
      expectRunInvariants(rig);
    });
  },
);

describe.each(["never", "safe"] as const)(
  "persist/restore of a tool call (t1 of [t1, t2]), replay %s",
  (replay) => {
    const cases = stateCases<ToolCallState, ToolCallModelEvent>(
      toolCallModel,
      toolCallModelEvents,
      describeToolCallState,
    ).filter((c) => c.state.status !== "done");

    it.each(cases)("restored in $name", async ({ path }) => {
      const rig = await startToolCallRun({ inspect, entry: "loop", replay });
      for (const step of path) await applyToolCallEvent(rig, step.event);
      const executing = observeToolCall(rig).state === "executing";
      rig.restoreHere();
      await rig.runToCompletion();
      await rig.finish();
      expectRunInvariants(rig);
      const result = rig.events.findLast((e) => e.type === "tool_execution_end" && e.toolCallId === SUBJECT);
      const interrupted = JSON.stringify(result).includes("not re-run after a restart");
      expect(interrupted).toBe(executing && replay === "never");
      expect(rig.events.filter((e) => e.type === "agent_resume")).toHaveLength(1);
    });
  },
);

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
  // A between-tools poll that answers asynchronously can land after the batch settled: the agent's
  // root STEERING_POLLED handler keeps the messages in the run's inbox for the turn it prepares.
  async function lateSteering() {
    const rig = new LoopRig({ steering: "betweenTools", holdBetweenToolsPolls: true, inspect });
    const step = stepper(rig);
    await step(...START, { type: "REPLY", kind: "tools" }, { type: "STEER" });
    await step(
      { type: "TOOL_SETTLED", call: "a", result: "ok" },
      { type: "TOOL_SETTLED", call: "b", result: "ok" },
    );
    expect(observeLoop(rig).value).toEqual({ preparingTurn: "deciding" });
    const steering = rig.queued[0]!;
    rig.answerPoll(rig.toolPolls, "answer");
    await settle(rig);
    expect(rig.queues.steering).toEqual([]);
    expect(observeLoop(rig).value).toEqual({ preparingTurn: "deciding" });
    return { rig, step, steering };
  }

  it("late between-tools steering is injected into the turn being prepared", async () => {
    const { rig, step, steering } = await lateSteering();
    await step({ type: "DECIDE", outcome: "answer" });
    expect(observeLoop(rig).value).toEqual({ streaming: "released" });
    expect(contains(rig.modelCalls[1]!.messages, steering)).toBe(true);
    await step({ type: "REPLY", kind: "text" }, { type: "DECIDE", outcome: "answer" });
    expect(observeLoop(rig).value).toBe("idle");
    expect(rig.modelCalls).toHaveLength(2);
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

// Commands an app sends to the agent actor outside the model's run: queues, setters, reset, continue.
describe("client tools and resumed calls", () => {
  const colours = () =>
    defineClientTool({
      name: "pick_colour",
      description: "Asks the user to pick a colour",
      parameters: z.object({ choices: z.array(z.string()) }),
    });
  const waitFor = (agent: Agent, type: AgentEvent["type"]) =>
    new Promise<AgentEvent>((resolve) => {
      const off = agent.subscribe((event) => {
        if (event.type === type) {
          off();
          resolve(event);
        }
      });
    });
  const resultTexts = (agent: Agent) =>
    agent.state.messages.flatMap((m) =>
      m.role === "toolResult" ? [m.content.map((c) => (c.type === "text" ? c.text : "")).join("")] : [],
    );

  it("a client tool's call waits in awaitingClient until the client answers; the model sees the answer", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "pick_colour", arguments: { choices: ["teal", "red"] } }] },
      { text: "You picked teal." },
    ]);
    const agent = new Agent({ model: testModel, streamFn: model, tools: [colours()], inspect });
    const asked = waitFor(agent, "tool_client_request");
    const run = agent.prompt("pick one");
    const request = (await asked) as Extract<AgentEvent, { type: "tool_client_request" }>;
    expect(request.args).toEqual({ choices: ["teal", "red"] });
    expect(agent.state.awaitingClient).toEqual([
      { toolCallId: request.toolCallId, toolName: "pick_colour", args: { choices: ["teal", "red"] } },
    ]);
    expect(() => agent.answerToolCall("nope", { content: [] })).toThrow(/awaiting the client/);
    agent.answerToolCall(request.toolCallId, { content: [{ type: "text", text: "teal" }] });
    await run;
    expect(resultTexts(agent)).toEqual(["teal"]);
    expect(agent.state.awaitingClient).toEqual([]);
    expect(model.calls[1]!.context.messages.at(-1)).toMatchObject({ role: "toolResult", isError: false });
  });

  it("an approval client tool asks first, survives persist/restore while waiting, and afterToolCall sees the answer", async () => {
    const approvalColours = { ...colours(), requiresApproval: true };
    const seen: string[] = [];
    const afterToolCall = async ({ result }: { result: { content: unknown[] } }) => {
      seen.push(JSON.stringify(result.content));
      return undefined;
    };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ toolCalls: [{ name: "pick_colour", arguments: { choices: ["a"] } }] }]),
      tools: [approvalColours],
      afterToolCall,
      inspect,
    });
    const approval = waitFor(agent, "tool_approval_request");
    void agent.prompt("pick");
    const { toolCallId } = (await approval) as Extract<AgentEvent, { type: "tool_approval_request" }>;
    const asked = waitFor(agent, "tool_client_request");
    agent.approveToolCall(toolCallId);
    await asked;
    const saved = JSON.stringify(agent.persist());
    agent.actor.stop();
    const restored = Agent.restore(saved, {
      streamFn: scriptedModel([{ text: "Thanks." }]),
      tools: [approvalColours],
      afterToolCall,
      inspect,
    });
    const again = waitFor(restored, "tool_client_request");
    expect(restored.state.awaitingClient.map((call) => call.toolCallId)).toEqual([toolCallId]);
    await again;
    restored.answerToolCall(toolCallId, { content: [{ type: "text", text: "a" }] });
    await restored.waitForIdle();
    expect(seen).toEqual([JSON.stringify([{ type: "text", text: "a" }])]);
    expect(resultTexts(restored)).toEqual(["a"]);
  });

  it("resumeToolCalls answers a recorded reply's calls through the machine: approval, interruption, events", async () => {
    const reply = {
      role: "assistant" as const,
      content: [
        { type: "toolCall" as const, id: "c1", name: "echo", arguments: { text: "one" } },
        { type: "toolCall" as const, id: "c2", name: "echo", arguments: { text: "two" } },
        { type: "toolCall" as const, id: "c3", name: "guarded", arguments: { text: "three" } },
      ],
      api: "scripted",
      provider: "scripted",
      model: testModel.id,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "toolUse" as const,
      timestamp: 1,
    };
    const guarded = { ...echoTool("guarded"), requiresApproval: true };
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: "All three answered." }]),
      tools: [echoTool(), guarded],
      messages: [user("go"), reply],
      inspect,
    });
    const events: string[] = [];
    agent.subscribe((event) => {
      if (event.type.startsWith("tool_"))
        events.push(`${event.type}:${(event as { toolCallId: string }).toolCallId}`);
    });
    const approval = waitFor(agent, "tool_approval_request");
    const run = agent.resumeToolCalls(reply, { c1: "interrupted", c2: "pending", c3: "pending" });
    await approval;
    expect(agent.state.awaitingApproval.map((call) => call.toolCallId)).toEqual(["c3"]);
    agent.approveToolCall("c3");
    await run;
    expect(resultTexts(agent)).toEqual([
      expect.stringContaining("interrupted, not re-run"),
      "echo: two",
      "echo: three",
    ]);
    expect(events).toEqual([
      "tool_execution_start:c1",
      "tool_execution_end:c1",
      "tool_execution_start:c2",
      "tool_execution_start:c3",
      "tool_approval_request:c3",
      "tool_execution_end:c2",
      "tool_execution_end:c3",
    ]);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    await expect(agent.resumeToolCalls(reply, { c9: "pending" })).rejects.toThrow(/last assistant message/);
  });
});

describe("agentMachine commands", () => {
  function agentActor(replies: ScriptedReply[], tools = [echoTool()]) {
    const machine = createAgentMachine({ streamFn: scriptedModel(replies), tools });
    const actor = createActor(machine, { input: { model: testModel }, inspect });
    const events: AgentEvent[] = [];
    actor.on("*", (event) => events.push(event));
    /** Resolves at the next `agent_end`. */
    const nextEnd = () => new Promise<void>((resolve) => actor.on("agent_end", () => resolve()));
    return { actor: actor.start(), events, nextEnd };
  }

  it("queues, changes settings and clears the transcript by events alone", () => {
    const { actor } = agentActor([]);
    const [steer, follow, old] = [user("s"), user("f"), user("old")];
    actor.send({ type: "STEER", message: steer });
    actor.send({ type: "FOLLOW_UP", message: follow });
    expect(actor.getSnapshot().context).toMatchObject({ steering: [steer], followUp: [follow] });
    actor.send({ type: "CLEAR_QUEUES", queue: "steering" });
    expect(actor.getSnapshot().context.steering).toEqual([]);
    const model = { ...testModel, id: "other" };
    actor.send({ type: "SET_MODEL", model });
    actor.send({ type: "SET_THINKING_LEVEL", thinkingLevel: "high" });
    actor.send({ type: "SET_SYSTEM_PROMPT", systemPrompt: "be brief" });
    actor.send({ type: "SET_TOOLS", toolNames: [] });
    actor.send({ type: "SET_STREAM_OPTIONS", streamOptions: { sessionId: "s-1" } });
    actor.send({ type: "SET_MESSAGES", messages: [old] });
    expect(actor.getSnapshot().context).toMatchObject({
      model,
      thinkingLevel: "high",
      systemPrompt: "be brief",
      toolNames: [],
      streamOptions: { sessionId: "s-1" },
      messages: [old],
    });
    actor.send({ type: "RESET" });
    expect(actor.getSnapshot().context).toMatchObject({ messages: [], steering: [], followUp: [] });
  });

  it("continues from a user tail and from queued steering, and ignores CONTINUE with nothing to do", async () => {
    const { actor, events, nextEnd } = agentActor([{ text: "one" }, { text: "two" }]);
    actor.send({ type: "CONTINUE" });
    expect(actor.getSnapshot().value).toBe("idle");
    expect(events).toEqual([]);
    actor.send({ type: "SET_MESSAGES", messages: [user("hi")] });
    let end = nextEnd();
    actor.send({ type: "CONTINUE" });
    await end;
    actor.send({ type: "STEER", message: user("more") });
    end = nextEnd();
    actor.send({ type: "CONTINUE" });
    await end;
    expect(actor.getSnapshot().context.messages.map((m) => (m as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("emits a running tool's progress as tool_execution_update, in order, and nothing it sends after it settled", async () => {
    let late: ((partial: unknown) => void) | undefined;
    const progressing = defineTool({
      name: "progress",
      description: "Reports progress",
      parameters: z.object({}),
      execute: async (_args, { update }) => {
        update({ step: 1 });
        await Promise.resolve();
        update({ step: 2 });
        late = update;
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const { actor, events, nextEnd } = agentActor(
      [{ toolCalls: [{ name: "progress", arguments: {} }] }, { text: "ok" }],
      [progressing as unknown as ReturnType<typeof echoTool>],
    );
    const end = nextEnd();
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await end;
    late?.({ step: 3 });
    const kinds = events.flatMap((e) =>
      e.type === "tool_execution_update"
        ? [`update ${JSON.stringify(e.partialResult)}`]
        : e.type.startsWith("tool_execution")
          ? [e.type]
          : [],
    );
    expect(kinds).toEqual([
      "tool_execution_start",
      'update {"step":1}',
      'update {"step":2}',
      "tool_execution_end",
    ]);
  });

  it("validates and finishes calls without hooks, and rejects an unknown tool", async () => {
    const { actor, events, nextEnd } = agentActor([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "x" } },
          { name: "nope", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const end = nextEnd();
    actor.send({ type: "PROMPT", messages: [user("go")] });
    await end;
    const results = events.flatMap((e) => (e.type === "tool_execution_end" ? [[e.toolName, e.isError]] : []));
    expect(Object.fromEntries(results)).toEqual({ echo: false, nope: true });
  });
});

describeOutputAndGuardrailPaths(inspect);
describeSubAgentPaths(inspect);
describeBudgetPaths(inspect);

describe("transition coverage", () => {
  it("names every transition of both machines uniquely", () => {
    for (const machine of [agentMachine, toolCallMachine]) {
      const labels = machineTransitions(machine).map(transitionLabel);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });

  // Runs after every test above: a new transition that no test takes fails here.
  it("took every transition except the documented unreachable ones", () => {
    const missed = ["agentMachine", "toolCallMachine"].flatMap(
      (name) => coverage.report(name).transitions.missed,
    );
    expect(missed.sort()).toEqual(Object.keys(UNREACHABLE).sort());
  });
});

afterAll(() => {
  for (const name of ["agentMachine", "toolCallMachine"]) {
    const { taken, total, missed } = coverage.report(name).transitions;
    const reasons = missed.map(
      (label) => `\n  not taken: ${label} (${UNREACHABLE[label] ?? "NOT DOCUMENTED"})`,
    );
    console.log(`${name} transitions covered: ${taken.length}/${total}${reasons.join("")}`);
  }
});
