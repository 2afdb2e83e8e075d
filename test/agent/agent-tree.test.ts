import { describe, expect, it } from "vitest";
import type { AnyActorRef } from "xstate";
import { agentAt, budgetPauses, waitingCalls } from "../../src/agent/agent-tree.js";

// agent-tree reads snapshots only; these stand-ins are actor refs reduced to the snapshot they show.
interface Node {
  value?: unknown;
  context?: unknown;
  children?: Record<string, AnyActorRef | undefined>;
}
const ref = (snapshot: Node) => ({ getSnapshot: () => snapshot }) as unknown as AnyActorRef;

/** An agent whose run's batch holds `calls` (their actors by id in `children`). */
function agent(
  calls: { id: string; name: string }[],
  children: Record<string, AnyActorRef> = {},
  paused?: object,
) {
  return ref({ context: { run: { batch: { calls }, ledger: paused ? { paused } : undefined } }, children });
}
const call = (value: string, args: unknown, child?: AnyActorRef) =>
  ref({ value, context: { args }, children: child ? { agent: child } : {} });

const pause = (limit: string) => ({ budget: limit }) as never;

describe("the agent tree", () => {
  const grandchild = agent(
    [{ id: "g1", name: "leaf" }],
    { g1: call("awaitingApproval", { depth: 2 }) },
    pause("c"),
  );
  const child = agent(
    [
      { id: "c1", name: "ask" },
      { id: "c2", name: "sub" },
    ],
    { c1: call("awaitingClient", { depth: 1 }), c2: call("running", {}, grandchild) },
    pause("b"),
  );
  const root = agent(
    [
      { id: "r1", name: "approve" },
      { id: "r2", name: "delegate" },
      { id: "r3", name: "gone" },
      { id: "r4", name: "client" },
    ],
    {
      r1: call("awaitingApproval", { a: 1 }),
      r2: call("running", {}, child),
      r4: call("awaitingClient", { b: 2 }),
    },
    pause("a"),
  );

  it("finds the agent at a path of tool call ids, or none", () => {
    expect(agentAt(root, [])).toBe(root);
    expect(agentAt(root, ["r2"])).toBe(child);
    expect(agentAt(root, ["r2", "c2"])).toBe(grandchild);
    expect(agentAt(root, ["r1"])).toBeUndefined(); // a call without a child agent
    expect(agentAt(root, ["nope", "c2"])).toBeUndefined();
    expect(agentAt(root, ["r2", "nope"])).toBeUndefined();
  });

  it("lists the calls waiting in a state, in source order, a sub-agent's after the call that runs it", () => {
    expect(waitingCalls(root, "awaitingApproval")).toEqual([
      { toolCallId: "r1", toolName: "approve", args: { a: 1 } },
      { toolCallId: "g1", toolName: "leaf", args: { depth: 2 }, agentPath: ["r2", "c2"] },
    ]);
    expect(waitingCalls(root, "awaitingClient")).toEqual([
      { toolCallId: "c1", toolName: "ask", args: { depth: 1 }, agentPath: ["r2"] },
      { toolCallId: "r4", toolName: "client", args: { b: 2 } },
    ]);
    expect("agentPath" in waitingCalls(root, "awaitingApproval")[0]!).toBe(false);
  });

  it("lists the budget pauses, the root's first, each sub-agent's with its path", () => {
    expect(budgetPauses(root)).toEqual([
      { budget: "a" },
      { budget: "b", agentPath: ["r2"] },
      { budget: "c", agentPath: ["r2", "c2"] },
    ]);
    expect(budgetPauses(child)).toEqual([{ budget: "b" }, { budget: "c", agentPath: ["c2"] }]);
  });

  it("an agent without a run, batch or pause has nothing waiting", () => {
    for (const idle of [ref({}), ref({ context: {} }), ref({ context: { run: {} } }), agent([])]) {
      expect(waitingCalls(idle, "awaitingApproval")).toEqual([]);
      expect(budgetPauses(idle)).toEqual([]);
      expect(agentAt(idle, ["x"])).toBeUndefined();
    }
    const noContext = agent([{ id: "x", name: "t" }], { x: ref({ value: "awaitingApproval" }) });
    expect(waitingCalls(noContext, "awaitingApproval")).toEqual([]);
  });
});
