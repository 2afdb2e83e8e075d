/**
 * The persisted agent format's parts on their own: each migration as a pure function over tables of
 * older snapshots, the schema of a nested child agent, and the readable text of what the schema found.
 * (test/agent/persisted-format.test.ts restores whole snapshots 0.2.0 wrote.)
 */
import { describe, expect, it } from "vitest";
import {
  issuesText,
  persistedAgentMachineSchema,
  migrateV1toV2 as v1toV2,
  migrateV2toV3 as v2toV3,
  migrateV4toV5 as v4toV5,
} from "../../src/agent/persisted-agent-format.js";

type Json = Record<string, any>;
// The migrations return untyped JSON; the tests read it freely.
const migrateV1toV2 = (snapshot: Json): Json => v1toV2(snapshot);
const migrateV2toV3 = (snapshot: Json): Json => v2toV3(snapshot);
const migrateV4toV5 = (snapshot: Json, path?: string[]): Json => v4toV5(snapshot, path);

const call = (value: unknown, context: Json = {}, extra: Json = {}) => ({
  src: "toolCall",
  snapshot: { status: "active", value, context: { toolCall: { name: "echo" }, ...context }, ...extra },
});

describe("migrateV1toV2", () => {
  it.each([
    [{ preparingTurn: "awaitingCallbacks" }, { preparingTurn: "deciding" }],
    [{ preparingTurn: "injecting" }, { preparingTurn: "injecting" }],
    ["streaming", "streaming"],
    ["idle", "idle"],
    [null, null],
    [undefined, undefined],
  ])("moves the agent's value %j to %j", (value, migrated) => {
    expect(migrateV1toV2({ value, context: {} }).value).toEqual(migrated);
  });

  it.each([
    [{ finalizing: "runningHook" }, "finalizing"],
    [{ preparing: "validating" }, { preparing: "validating" }],
    ["executing", "executing"],
    [null, null],
  ])("moves a tool call's value %j to %j", (value, migrated) => {
    const out = migrateV1toV2({ value: "executingTools", context: {}, children: { c1: call(value) } });
    expect(out.children.c1.snapshot.value).toEqual(migrated);
  });

  it("gives each call `client: false` and `afterHook: true` unless it has them, keeping its other fields", () => {
    const out = migrateV1toV2({
      value: "executingTools",
      context: {},
      children: { c1: call("executing"), c2: call("awaitingApproval", { client: true, afterHook: false }) },
    });
    expect(out.children.c1).toEqual({
      src: "toolCall",
      snapshot: {
        status: "active",
        value: "executing",
        context: { client: false, afterHook: true, toolCall: { name: "echo" } },
      },
    });
    expect(out.children.c2.snapshot.context).toMatchObject({ client: true, afterHook: false });
  });

  it("gives the run a `failure` field and its batch an empty `approved` list, keeping what they hold", () => {
    const out = migrateV1toV2({
      value: "executingTools",
      context: { agentId: "a", run: { turns: 2, batch: { calls: [] } } },
    });
    expect(out.context).toEqual({
      agentId: "a",
      run: { failure: undefined, turns: 2, batch: { approved: [], calls: [] } },
    });
    expect("failure" in out.context.run).toBe(true);
    const kept = migrateV1toV2({ context: { run: { failure: "x", batch: { approved: ["c1"] } } } });
    expect(kept.context.run).toEqual({ failure: "x", batch: { approved: ["c1"] } });
    expect(migrateV1toV2({ context: { run: { turns: 1 } } }).context.run.batch).toBeUndefined();
    expect(migrateV1toV2({ context: {} }).context.run).toBeUndefined();
  });

  it("returns a new object and leaves its input as it was", () => {
    const input = { value: { preparingTurn: "awaitingCallbacks" }, context: { run: { turns: 1 } } };
    const before = structuredClone(input);
    expect(migrateV1toV2(input)).not.toBe(input);
    expect(input).toEqual(before);
  });
});

describe("migrateV2toV3", () => {
  it.each([
    ["streaming", { streaming: "released" }],
    ["idle", "idle"],
    ["executingTools", "executingTools"],
  ])("moves the value %j to %j", (value, migrated) => {
    expect(migrateV2toV3({ value, context: {} }).value).toEqual(migrated);
  });

  it("gives the context no guardrails unless it has some", () => {
    expect(migrateV2toV3({ value: "idle", context: { agentId: "a" } }).context).toEqual({
      agentId: "a",
      guardrails: { input: [], output: [] },
    });
    const own = { input: [{ name: "g", mode: "blocking" }], output: ["o"] };
    expect(migrateV2toV3({ value: "idle", context: { guardrails: own } }).context.guardrails).toBe(own);
    expect(migrateV2toV3({ value: "idle" }).context).toEqual({ guardrails: { input: [], output: [] } });
  });
});

describe("migrateV4toV5", () => {
  const context = {
    agentId: "root",
    systemPrompt: "be kind",
    messages: [{ role: "user", content: "hi" }],
    toolNames: ["echo"],
    model: { id: "m" },
  };

  it.each([
    ["idle", "idle"],
    [undefined, undefined],
    [{ streaming: "held" }, { running: { streaming: "held" } }],
    ["validatingOutput", { running: "validatingOutput" }],
    [{ preparingTurn: "deciding" }, { running: { preparingTurn: "deciding" } }],
  ])("moves the value %j under running: %j", (value, migrated) => {
    expect(migrateV4toV5({ value, context }).value).toEqual(migrated);
  });

  it.each([
    [["executing"], "working"],
    [[{ preparing: "ready" }, "finalizing"], "working"],
    [["executing", "awaitingApproval"], "awaitingHuman"],
    [["awaitingClient"], "awaitingHuman"],
  ])("splits executingTools by its calls %j: %s", (values, state) => {
    const children = Object.fromEntries(values.map((value, index) => [`c${index}`, call(value)]));
    const out = migrateV4toV5({
      value: "executingTools",
      context: { ...context, run: { batch: { calls: [] } } },
      children,
    });
    expect(out.value).toEqual({ running: { executingTools: state } });
  });

  it("lists the waiting calls in the batch, unless it lists them already", () => {
    const children = {
      c1: call("awaitingApproval"),
      c2: call("executing"),
      c3: call("awaitingClient"),
    };
    const run = { turns: 1, batch: { calls: [] } };
    const out = migrateV4toV5({ value: "executingTools", context: { ...context, run }, children });
    expect(out.context.run.batch).toEqual({ waiting: ["c1", "c3"], calls: [] });
    const listed = migrateV4toV5({
      value: "executingTools",
      context: { ...context, run: { batch: { waiting: ["c3"] } } },
      children,
    });
    expect(listed.context.run.batch.waiting).toEqual(["c3"]);
    expect(migrateV4toV5({ value: "streaming", context: { ...context, run } }).context.run.batch).toEqual({
      waiting: [],
      calls: [],
    });
  });

  it("marks the context version 5 and gives a held reply no events", () => {
    const held = { message: { role: "assistant", content: [] }, sequential: false };
    const out = migrateV4toV5({
      value: { streaming: "held" },
      context: { ...context, run: { heldReply: held } },
    });
    expect(out.context.formatVersion).toBe(5);
    expect(out.context.run).toEqual({ heldReply: { events: [], ...held }, batch: undefined });
    const own = migrateV4toV5({
      value: { streaming: "held" },
      context: { ...context, run: { heldReply: { ...held, events: [{ type: "x" }] } } },
    });
    expect(own.context.run.heldReply.events).toEqual([{ type: "x" }]);
    expect(migrateV4toV5({ value: "idle", context }).context.run).toBeUndefined();
  });

  it("gives each call what its hooks see of its agent, keeping the call's own fields", () => {
    const out = migrateV4toV5({
      value: "executingTools",
      context,
      children: { c1: call("executing", { args: 1 }) },
    });
    expect(out.children.c1.snapshot.context).toEqual({
      agent: { ...context, path: [] },
      toolCall: { name: "echo" },
      args: 1,
    });
    expect(out.children.c1.snapshot.children).toBeUndefined();
  });

  it("migrates a delegating call's child agent too, with its place in the tree", () => {
    const grandchild = call("awaitingApproval", { toolCall: { name: "refund" } });
    const nested = {
      status: "active",
      value: "executingTools",
      context: { ...context, agentId: "child", run: { batch: {} } },
      children: { g1: grandchild },
    };
    const out = migrateV4toV5({
      value: "executingTools",
      context,
      children: {
        h1: call(
          "delegating",
          { toolCall: { name: "helper" }, args: { task: "t" } },
          {
            children: { agent: { src: "subAgent", snapshot: nested } },
          },
        ),
      },
    });
    const agent = out.children.h1.snapshot.children.agent;
    expect(agent.src).toBe("subAgent");
    expect(agent.snapshot.value).toEqual({ running: { executingTools: "awaitingHuman" } });
    expect(agent.snapshot.context.place).toEqual({ path: ["h1"], args: { task: "t" }, toolName: "helper" });
    expect(agent.snapshot.context.formatVersion).toBe(5);
    expect(agent.snapshot.context.run.batch.waiting).toEqual(["g1"]);
    expect(agent.snapshot.children.g1.snapshot.context.agent).toMatchObject({
      agentId: "child",
      path: ["h1"],
    });
    const deeper = migrateV4toV5({ value: "executingTools", context, children: { g2: grandchild } }, [
      "a",
      "b",
    ]);
    expect(deeper.children.g2.snapshot.context.agent.path).toEqual(["a", "b"]);
  });

  it("keeps a child agent's own place", () => {
    const place = { path: ["x"], args: {}, toolName: "other" };
    const out = migrateV4toV5({
      value: "executingTools",
      context,
      children: {
        h1: call(
          "delegating",
          {},
          {
            children: { agent: { src: "subAgent", snapshot: { value: "idle", context: { place } } } },
          },
        ),
      },
    });
    expect(out.children.h1.snapshot.children.agent.snapshot.context.place).toEqual(place);
  });
});

describe("the schema of a persisted child agent", () => {
  it("checks a delegating call's child agent like the root, naming the path of what is wrong", () => {
    const result = persistedAgentMachineSchema.safeParse({
      status: "active",
      value: "idle",
      context: {},
      children: {
        h1: call(
          "delegating",
          {},
          { children: { agent: { src: "subAgent", snapshot: { value: "dreaming" } } } },
        ),
      },
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join("."));
    expect(paths).toContain("children.h1.snapshot.children.agent.snapshot.value");
    expect(paths).toContain("children.h1.snapshot.children.agent.snapshot.context");
  });
});

describe("issuesText", () => {
  it("lists the first five issues as `path: message`, the root as (root)", () => {
    const issues = ["a", "b", "c", "d", "e", "f"].map((name, index) => ({
      path: index === 0 ? [] : [name, index],
      message: `bad ${name}`,
    }));
    expect(issuesText(issues)).toBe("(root): bad a; b.1: bad b; c.2: bad c; d.3: bad d; e.4: bad e");
    expect(issuesText([])).toBe("");
  });
});
