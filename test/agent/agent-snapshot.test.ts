/**
 * `persistAgent`, `restorableAgentSnapshot` and `restoreAgentActor` on their own, in this process:
 * what a persisted agent keeps and leaves out, the plan a restore resumes with (per call state, per
 * sub-agent), the overrides, and the named error for each way a persisted agent can be wrong.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import {
  AGENT_SNAPSHOT_FORMAT,
  AGENT_SNAPSHOT_VERSION,
  AgentRestoreError,
  type PersistedAgent,
  persistAgent,
  type RestorePlan,
  restorableAgentSnapshot,
  restoreAgentActor,
} from "../../src/agent/agent-snapshot.js";
import { migrateV1toV2, migrateV2toV3 } from "../../src/agent/persisted-agent-format.js";
import { agentImplementations } from "../../src/machines/agent/agent.implementations.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { defineClientTool } from "../../src/tools/define-client-tool.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentEvent } from "../../src/types/events.js";
import type { AgentTool } from "../../src/types/tool.js";
import { supportTree } from "../subagents/support.js";
import { repoRoot } from "../support/cli-process.js";
import { deferred, echoTool, testModel } from "../support/loop-harness.js";

/** A persisted agent edited by hand into a malformed one. */
type Json = any;

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(repoRoot, "test/fixtures/persisted/0.2.0", name), "utf8"));
/** Stand-ins for the tools the 0.2.0 fixtures name. */
const fixtureTools = () => ["echo", "slow", "slow_safe", "refund"].map((name) => echoTool(name));

/** A tool that reports its start in `started` and holds its execution until `gate` resolves. */
function heldTool(name: string, started: (name: string) => void, gate: Promise<void>, extra = {}) {
  return defineTool({
    name,
    description: name,
    parameters: z.object({}),
    ...extra,
    execute: async () => {
      started(name);
      await gate;
      return { content: [{ type: "text", text: `${name} ran` }] };
    },
  });
}

/** The tools of the batch below; `gate` holds the two that execute. */
function batchTools(started: (name: string) => void = () => {}, gate: Promise<void> = new Promise(() => {})) {
  return [
    heldTool("slow", started, gate),
    heldTool("slow_safe", started, gate, { replay: "safe" }),
    heldTool("refund", started, gate, { requiresApproval: true }),
    defineClientTool({ name: "ask", description: "Asks the user", parameters: z.object({}) }),
  ];
}

/**
 * An agent persisted with one call in each waiting state: `c_slow` (replay never) and `c_safe`
 * (replay safe) executing, `c_refund` awaiting approval, `c_ask` awaiting the client.
 */
async function persistedMidBatch(): Promise<PersistedAgent> {
  const executing = new Set<string>();
  const allWaiting = deferred();
  const waits = new Set<string>();
  const check = () => {
    if (executing.size === 2 && waits.size === 2) allWaiting.resolve();
  };
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([
      {
        toolCalls: [
          { id: "c_slow", name: "slow", arguments: {} },
          { id: "c_safe", name: "slow_safe", arguments: {} },
          { id: "c_refund", name: "refund", arguments: {} },
          { id: "c_ask", name: "ask", arguments: {} },
        ],
      },
    ]),
    tools: batchTools((name) => {
      executing.add(name);
      check();
    }),
  });
  agent.subscribe((event) => {
    if (event.type === "tool_approval_request" || event.type === "tool_client_request") {
      waits.add(event.toolCallId);
      check();
    }
  });
  void agent.prompt("go");
  await allWaiting.promise;
  const persisted = agent.persist();
  agent.actor.stop();
  return persisted;
}

/** A root agent whose call `h1` of the agent tool `helper` runs a child agent that is streaming. */
function helperTool(streamFn = scriptedModel([{ text: "helping", hang: true }])) {
  return defineAgentTool({
    name: "helper",
    description: "Helps",
    agent: { systemPrompt: "You help.", streamFn },
  });
}

async function persistedWhileChildStreams(): Promise<{ persisted: PersistedAgent; live: Json }> {
  const childStreaming = deferred();
  const agent = new Agent({
    model: testModel,
    streamFn: scriptedModel([{ toolCalls: [{ id: "h1", name: "helper", arguments: { task: "t" } }] }]),
    tools: [helperTool()],
  });
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.agentPath?.[0] === "h1") childStreaming.resolve();
  });
  void agent.prompt("go");
  await childStreaming.promise;
  const live = agent.actor.getPersistedSnapshot();
  const persisted = agent.persist();
  agent.actor.stop();
  return { persisted, live };
}

/** The three-level support tree (root → s1 → b1 → refund r1) persisted while r1 waits for approval. */
async function persistedTree() {
  const tree = supportTree({ count: 0, keys: [] });
  const asked = deferred();
  const agent = new Agent({ model: testModel, streamFn: scriptedModel(tree.rootScript), tools: tree.tools });
  agent.subscribe((event) => {
    if (event.type === "tool_approval_request") asked.resolve();
  });
  void agent.prompt("help");
  await asked.promise;
  const persisted = agent.persist();
  agent.actor.stop();
  return { persisted, tree };
}

const implementationsOf = (tools: AgentTool[] = [], streamFn = scriptedModel([])) =>
  agentImplementations({ streamFn, tools });

const planOf = (input: string | PersistedAgent, tools: AgentTool[] = []) =>
  restorableAgentSnapshot(input, implementationsOf(tools), {}).plan;

const sorted = (plan: RestorePlan) => ({
  ...plan,
  interrupted: [...plan.interrupted].sort(),
  reenter: [...plan.reenter].sort(),
  waiting: [...plan.waiting].sort(),
});

function restoreError(input: unknown, tools: AgentTool[] = []): AgentRestoreError {
  try {
    restorableAgentSnapshot(input as PersistedAgent, implementationsOf(tools), {});
  } catch (error) {
    expect(error).toBeInstanceOf(AgentRestoreError);
    expect((error as Error).name).toBe("AgentRestoreError");
    return error as AgentRestoreError;
  }
  throw new Error("expected an AgentRestoreError");
}

describe("persistAgent", () => {
  it("writes the format, the version and the actor's persisted snapshot of an idle agent", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), systemPrompt: "be brief" });
    const persisted = persistAgent(agent.actor);
    expect(persisted.format).toBe("agentchart.agent");
    expect(persisted.version).toBe(5);
    expect(persisted.snapshot).toEqual({ ...agent.actor.getPersistedSnapshot(), children: {} });
    expect(persisted.snapshot.context.systemPrompt).toBe("be brief");
  });

  it("leaves the invoked stream out of an agent persisted while it streams", async () => {
    const streaming = deferred();
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "partial", hang: true }]) });
    agent.subscribe((event) => {
      if (event.type === "message_update") streaming.resolve();
    });
    void agent.prompt("go");
    await streaming.promise;
    expect(Object.keys((agent.actor.getPersistedSnapshot() as Json).children)).not.toEqual([]);
    const persisted = agent.persist();
    agent.actor.stop();
    expect(persisted.snapshot.children).toEqual({});
    expect(persisted.snapshot.value).toEqual({ running: { streaming: "released" } });
  });

  it("keeps each tool call actor with its state and context, but not the actors a call invokes", async () => {
    const persisted = await persistedMidBatch();
    const children = persisted.snapshot.children;
    expect(Object.keys(children).sort()).toEqual(["c_ask", "c_refund", "c_safe", "c_slow"]);
    for (const [id, child] of Object.entries(children)) {
      expect(child.src).toBe("toolCall");
      expect(child.snapshot.children).toEqual({});
      expect((child.snapshot.context as Json).toolCall.id).toBe(id);
    }
    expect(children.c_slow!.snapshot.value).toBe("executing");
    expect(children.c_refund!.snapshot.value).toBe("awaitingApproval");
    expect(children.c_ask!.snapshot.value).toBe("awaitingClient");
  });

  it("keeps a delegating call's child agent, persisted the same way (its stream left out)", async () => {
    const { persisted, live } = await persistedWhileChildStreams();
    expect(Object.keys(live.children.h1.snapshot.children.agent.snapshot.children)).not.toEqual([]);
    const call = persisted.snapshot.children.h1!;
    expect(call.snapshot.value).toBe("delegating");
    expect(Object.keys(call.snapshot.children!)).toEqual(["agent"]);
    const agent = call.snapshot.children!.agent as Json;
    expect(agent.src).toBe("subAgent");
    expect(agent.snapshot.value).toEqual({ running: { streaming: "released" } });
    expect(agent.snapshot.children).toEqual({});
    expect(agent.snapshot.context.systemPrompt).toBe("You help.");
  });
});

describe("the restore plan", () => {
  it("is empty for an idle agent", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    expect(planOf(agent.persist())).toEqual({
      from: undefined,
      interrupted: [],
      reenter: [],
      waiting: [],
      subAgents: [],
    });
  });

  it("interrupts a never-replay execution, re-enters a safe one, and lets approval and client calls wait", async () => {
    const persisted = await persistedMidBatch();
    expect(sorted(planOf(persisted, batchTools()))).toEqual({
      from: "executingTools",
      interrupted: ["c_slow"],
      reenter: ["c_safe"],
      waiting: ["c_ask", "c_refund"],
      subAgents: [],
    });
  });

  it("re-enters every call still being prepared", async () => {
    const hookCalled = deferred();
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([
        {
          toolCalls: [
            { id: "c_1", name: "echo", arguments: { text: "a" } },
            { id: "c_2", name: "echo", arguments: { text: "b" } },
          ],
        },
      ]),
      tools: [echoTool()],
      beforeToolCall: ({ toolCall }) => {
        if (toolCall.id !== "c_2") return undefined;
        hookCalled.resolve();
        return new Promise<undefined>(() => {});
      },
    });
    void agent.prompt("go");
    await hookCalled.promise;
    const persisted = agent.persist();
    agent.actor.stop();
    expect(persisted.snapshot.children.c_2!.snapshot.value).toEqual({ preparing: "checkingHook" });
    expect(sorted(planOf(persisted, [echoTool()]))).toEqual({
      from: "executingTools",
      interrupted: [],
      reenter: ["c_1", "c_2"],
      waiting: [],
      subAgents: [],
    });
  });

  it("names the run state of each value: a compound state by its first key, validatingOutput by name", () => {
    const streaming = fixture("agent-streaming.json");
    expect(planOf(streaming, fixtureTools()).from).toBe("streaming");
    const saved = restorableAgentSnapshot(streaming, implementationsOf(fixtureTools()), {}).snapshot;
    for (const [value, from] of [
      [{ running: { preparingTurn: "deciding" } }, "preparingTurn"],
      [{ running: { streaming: "held" } }, "streaming"],
      [{ running: "validatingOutput" }, "validatingOutput"],
    ] as const) {
      const persisted = { format: AGENT_SNAPSHOT_FORMAT, version: 5, snapshot: { ...saved, value } };
      expect(planOf(persisted as PersistedAgent, fixtureTools()).from).toBe(from);
    }
  });

  it("lists a streaming child agent as a sub-agent to resume, with its own plan", async () => {
    const { persisted } = await persistedWhileChildStreams();
    expect(planOf(persisted, [helperTool()])).toEqual({
      from: "executingTools",
      interrupted: [],
      reenter: [],
      waiting: [],
      subAgents: [
        {
          path: ["h1"],
          plan: { from: "streaming", interrupted: [], reenter: [], waiting: [], subAgents: [] },
        },
      ],
    });
  });

  it("lists the sub-agents of a tree parents first, each plan holding only its own calls", async () => {
    const { persisted, tree } = await persistedTree();
    const idle = { interrupted: [], reenter: [], subAgents: [] };
    expect(planOf(persisted, tree.tools)).toEqual({
      from: "executingTools",
      ...idle,
      waiting: [],
      subAgents: [
        { path: ["s1"], plan: { from: "executingTools", ...idle, waiting: [] } },
        { path: ["s1", "b1"], plan: { from: "executingTools", ...idle, waiting: ["r1"] } },
      ],
    });
  });

  it("leaves out a child agent that is idle (nothing to resume)", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const edited: Json = copy(persisted);
    const child = edited.snapshot.children.h1.snapshot.children.agent.snapshot;
    child.value = "idle";
    child.context.run = undefined;
    expect(planOf(edited, [helperTool()]).subAgents).toEqual([]);
  });
});

describe("restoreAgentActor, for an agent a harness hosted", () => {
  it("restores an agent a harness hosted as a root: the events its host wanted go to listeners only", async () => {
    const persisted = await persistedMidBatch();
    // As a harness's agent is persisted: its host wants these events sent to it.
    (persisted.snapshot.context as { parentEvents?: string[] }).parentEvents = ["agent_end", "turn_end"];
    const restored = Agent.restore(persisted, { streamFn: scriptedModel([]), tools: batchTools() });
    const ended = new Promise<AgentEvent>((done) =>
      restored.subscribe((event) => {
        if (event.type === "agent_end") done(event);
      }),
    );
    restored.abort();
    expect((await ended).type).toBe("agent_end");
    expect(restored.actor.getSnapshot().status).toBe("active");
    expect(restored.actor.getSnapshot().context.parentEvents).toBeUndefined();
    restored.actor.stop();
  });
});

describe("restorableAgentSnapshot", () => {
  it("reads the JSON text as the object, and returns a version-5 snapshot unchanged", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), tools: [echoTool()] });
    const persisted = agent.persist();
    const fromText = restorableAgentSnapshot(JSON.stringify(persisted), implementationsOf([echoTool()]), {});
    expect(fromText.snapshot).toEqual(copy(persisted.snapshot));
    expect(restorableAgentSnapshot(persisted, implementationsOf([echoTool()]), {}).snapshot).toEqual(
      persisted.snapshot,
    );
  });

  it("applies the overrides that are set, and keeps the snapshot's values for the others", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), systemPrompt: "old" });
    const other = { ...testModel, id: "other" };
    const { snapshot } = restorableAgentSnapshot(agent.persist(), implementationsOf(), {
      systemPrompt: "new",
      model: other,
      thinkingLevel: undefined,
    });
    expect(snapshot.context).toMatchObject({ systemPrompt: "new", model: other, thinkingLevel: "off" });
    expect(agent.actor.getSnapshot().context.systemPrompt).toBe("old");
  });

  it("migrates version 1 (0.2.0) and gives the same snapshot as the versions in between", () => {
    for (const name of ["agent-idle.json", "agent-streaming.json", "agent-executing-tools.json"]) {
      const v1 = fixture(name);
      const implementations = implementationsOf(fixtureTools());
      const expected = restorableAgentSnapshot(v1, implementations, {}).snapshot;
      expect(expected.context.formatVersion).toBe(5);
      const v2 = { ...v1, version: 2, snapshot: migrateV1toV2(v1.snapshot) };
      const v3 = { ...v1, version: 3, snapshot: migrateV2toV3(v2.snapshot) };
      const v4 = { ...v3, version: 4 };
      for (const older of [v2, v3, v4])
        expect(restorableAgentSnapshot(older, implementations, {}).snapshot).toEqual(expected);
    }
  });
});

describe("restoreAgentActor", () => {
  it("creates the actor without starting it, from the snapshot with the overrides", () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]), systemPrompt: "old" });
    const { actor, plan } = restoreAgentActor(agent.persist(), implementationsOf(), { systemPrompt: "new" });
    expect(plan.from).toBeUndefined();
    expect(actor.getSnapshot().value).toBe("idle");
    expect(actor.getSnapshot().context.systemPrompt).toBe("new");
    const events: AgentEvent[] = [];
    actor.on("*", (event) => events.push(event));
    actor.send({ type: "SET_SYSTEM_PROMPT", systemPrompt: "ignored before start" });
    expect(actor.getSnapshot().context.systemPrompt).toBe("new");
    actor.start();
    actor.stop();
  });

  it("passes the inspector on, which sees the restored actor's events", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([]) });
    const inspected: InspectionEvent[] = [];
    const { actor } = restoreAgentActor(agent.persist(), implementationsOf(), {}, (event) =>
      inspected.push(event),
    );
    actor.start();
    actor.send({ type: "SET_SYSTEM_PROMPT", systemPrompt: "seen" });
    actor.stop();
    expect(
      inspected.some(
        (event) =>
          event.type === "@xstate.event" && (event.event as { type: string }).type === "SET_SYSTEM_PROMPT",
      ),
    ).toBe(true);
  });

  it("resumes a restored streaming child agent where it was, and the tree finishes", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const childModel = scriptedModel([{ text: "helped" }]);
    const restored = Agent.restore(JSON.stringify(persisted), {
      streamFn: scriptedModel([{ text: "done" }]),
      tools: [helperTool(childModel)],
    });
    await restored.waitForIdle();
    expect(childModel.calls).toHaveLength(1);
    expect(restored.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});

describe("a persisted agent that cannot be restored", () => {
  const idle = () =>
    new Agent({ model: testModel, streamFn: scriptedModel([]), tools: [echoTool()] }).persist();

  it("refuses text that is not JSON, quoting the parser", () => {
    const error = restoreError("{not json");
    expect(error.code).toBe("parse");
    expect(error.message).toMatch(/^The persisted agent is not valid JSON: \S.*JSON/);
  });

  it.each([
    ["null", null],
    ["a number", 42],
    ["JSON text of a string", '"agentchart.agent"'],
    ["another format", { format: "other", version: 5, snapshot: {} }],
    ["no format", { version: 5, snapshot: {} }],
  ])("refuses %s as another format", (_, input) => {
    const error = restoreError(input);
    expect(error.code).toBe("format");
    expect(error.message).toBe('Not a persisted agent (expected format "agentchart.agent")');
  });

  it.each([
    [0, "0"],
    [6, "6"],
    ["5", '"5"'],
    [undefined, "undefined"],
  ])("refuses version %j, naming it and the versions it reads", (version, shown) => {
    const error = restoreError({ ...idle(), version });
    expect(error.code).toBe("version");
    expect(error.message).toBe(
      `Unknown persisted agent version ${shown} (this agentchart reads versions 1, 2, 3, 4, 5)`,
    );
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["text", "snapshot"],
  ])("refuses a snapshot that is %s", (_, snapshot) => {
    const error = restoreError({ format: AGENT_SNAPSHOT_FORMAT, version: AGENT_SNAPSHOT_VERSION, snapshot });
    expect(error.code).toBe("invalid");
    expect(error.message).toBe("Malformed persisted agent: the snapshot is missing");
  });

  it("names the fields the schema refuses", () => {
    const persisted: Json = idle();
    persisted.snapshot.context.messages = [{ role: "assistant" }];
    persisted.snapshot.context.thinkingLevel = 3;
    const error = restoreError(persisted, [echoTool()]);
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(/^Malformed persisted agent: context\.thinkingLevel: .*/);
    expect(error.message).toMatch(/context\.messages\.0: an assistant message needs a content array/);
  });

  it("names an active tool the implementations do not supply", () => {
    const error = restoreError(idle());
    expect(error.code).toBe("tool");
    expect(error.message).toBe(
      'The persisted agent uses tool "echo", which the restore options do not supply',
    );
  });

  it("names the tool of a call that the implementations do not supply", async () => {
    const persisted: Json = await persistedMidBatch();
    persisted.snapshot.context.toolNames = [];
    const error = restoreError(
      persisted,
      batchTools().filter((tool) => tool.name !== "ask"),
    );
    expect(error.code).toBe("tool");
    expect(error.message).toMatch(/uses tool "ask"/);
  });

  it("refuses an agent in a run state without its run", () => {
    const saved = fixture("agent-streaming.json");
    saved.snapshot.context.run = undefined;
    expect(restoreError(saved, fixtureTools()).message).toBe(
      'Malformed persisted agent: the agent is in {"running":{"streaming":"released"}} but has no run',
    );
  });

  it("refuses an agent executing tools without a tool batch", async () => {
    const persisted: Json = await persistedMidBatch();
    persisted.snapshot.context.run.batch = undefined;
    expect(restoreError(persisted, batchTools()).message).toBe(
      "Malformed persisted agent: the agent is executing tools but its run has no tool batch",
    );
  });

  it("refuses a tool call actor of an agent that is not executing tools", async () => {
    const persisted: Json = await persistedMidBatch();
    const streaming: Json = fixture("agent-streaming.json");
    const migrated: Json = copy(
      restorableAgentSnapshot(streaming, implementationsOf(fixtureTools()), {}).snapshot,
    );
    migrated.children = { c_slow: persisted.snapshot.children.c_slow };
    const error = restoreError({ format: AGENT_SNAPSHOT_FORMAT, version: 5, snapshot: migrated }, [
      ...fixtureTools(),
      ...batchTools(),
    ]);
    expect(error.code).toBe("invalid");
    expect(error.message).toBe(
      'Malformed persisted agent: child actor "c_slow" belongs to no call of the current tool batch',
    );
  });

  it("accepts pending and settled calls without an actor, and refuses a started one without", async () => {
    const persisted: Json = await persistedMidBatch();
    const without = (phase: string | undefined) => {
      const edited: Json = copy(persisted);
      delete edited.snapshot.children.c_slow;
      if (phase === undefined) delete edited.snapshot.context.run.batch.phases.c_slow;
      else edited.snapshot.context.run.batch.phases.c_slow = phase;
      return edited;
    };
    for (const phase of ["pending", "settled", undefined])
      expect(planOf(without(phase), batchTools()).interrupted).toEqual([]);
    for (const phase of ["preparing", "prepared", "executing"])
      expect(restoreError(without(phase), batchTools()).message).toBe(
        `Malformed persisted agent: tool call "c_slow" is ${phase} but its actor is missing`,
      );
  });

  it("refuses a delegating call without its child agent, and a child agent under another state", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const missing: Json = copy(persisted);
    missing.snapshot.children.h1.snapshot.children = {};
    expect(restoreError(missing, [helperTool()]).message).toBe(
      'Malformed persisted agent: tool call "h1" is delegating but its child agent is missing',
    );
    const executing: Json = copy(persisted);
    executing.snapshot.children.h1.snapshot.value = "executing";
    expect(restoreError(executing, [helperTool()]).message).toBe(
      'Malformed persisted agent: tool call "h1" holds a child agent but is "executing"',
    );
  });

  it("refuses a child agent under a tool that is no agent tool", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const error = restoreError(persisted, [echoTool("helper")]);
    expect(error.code).toBe("invalid");
    expect(error.message).toBe(
      'Malformed persisted agent: tool call "h1" runs a child agent but "helper" is no agent tool',
    );
  });

  it("reports an agent tool that cannot rebuild its child agent as a tool error", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const broken = defineAgentTool({
      name: "helper",
      description: "Helps",
      agent: () => {
        throw new Error("no spec today");
      },
    });
    const error = restoreError(persisted, [broken]);
    expect(error.code).toBe("tool");
    expect(error.message).toBe('The agent tool "helper" could not rebuild its sub-agent: no spec today');
  });

  it("names a grandchild agent whose own snapshot is inconsistent by its path", async () => {
    const { persisted, tree } = await persistedTree();
    const edited: Json = copy(persisted);
    const child = edited.snapshot.children.s1.snapshot.children.agent.snapshot;
    const grandchild = child.children.b1.snapshot.children.agent.snapshot;
    grandchild.context.run.batch = undefined;
    expect(restoreError(edited, tree.tools).message).toBe(
      "Malformed persisted agent: sub-agent s1/b1: the agent is executing tools but its run has no tool batch",
    );
  });

  it("names the sub-agent whose own snapshot is inconsistent", async () => {
    const { persisted } = await persistedWhileChildStreams();
    const edited: Json = copy(persisted);
    edited.snapshot.children.h1.snapshot.children.agent.snapshot.context.run = undefined;
    expect(restoreError(edited, [helperTool()]).message).toBe(
      'Malformed persisted agent: sub-agent h1: the agent is in {"running":{"streaming":"released"}} but has no run',
    );
  });
});
