import { describe, expect, it } from "vitest";
import type { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessOperation } from "../../src/machines/harness/harness.machine.js";
import { createHarness, standInCompaction, texts } from "../support/harness-support.js";
import { echoTool } from "../support/loop-harness.js";

/** The phase, the operation in the phase machine's context and whether its `turn` child runs, at every snapshot. */
function watchOperation(harness: AgentHarness) {
  const seen: { phase: string; operation: HarnessOperation | undefined; turnActor: boolean }[] = [];
  harness.actor.subscribe((snapshot) =>
    seen.push({
      phase: String(snapshot.value),
      operation: snapshot.context.operation,
      turnActor: snapshot.children.turn !== undefined,
    }),
  );
  return seen;
}

describe("one owner per harness operation: the phase machine", () => {
  it("holds a prompt's operation in its context while its turn actor runs, and clears it once settled", async () => {
    const { harness } = await createHarness([{ text: "hello back" }]);
    harness.nextTurn("first, this");
    const seen = watchOperation(harness);
    const { reply } = await harness.prompt("hello");
    expect(texts([reply])).toEqual(["hello back"]);
    const turn = seen.filter((step) => step.phase === "turn");
    expect(turn.length).toBeGreaterThan(0);
    for (const step of turn) {
      expect(step.turnActor).toBe(true);
      expect(step.operation).toMatchObject({ kind: "prompt", prompt: "hello", images: [] });
      expect(texts(step.operation?.kind === "prompt" ? step.operation.messages : [])).toEqual([
        "first, this",
        "hello",
      ]);
    }
    expect(seen.at(-1)).toEqual({ phase: "idle", operation: undefined, turnActor: false });
  });

  it("hands a compaction's instructions to its actor and its result to the caller", async () => {
    const { harness } = await createHarness([{ text: "a1" }, { text: "a2" }, { text: "SUMMARY" }], {
      compactionPort: standInCompaction(),
    });
    await harness.prompt("q1");
    await harness.prompt("q2");
    const seen = watchOperation(harness);
    const result = await harness.compact("keep names");
    expect(result.compacted).toBe(true);
    expect(seen.find((step) => step.phase === "compaction")?.operation).toEqual({
      kind: "compact",
      instructions: "keep names",
    });
    expect(seen.at(-1)?.operation).toBeUndefined();
  });

  it("forwards an abort to the turn actor: the before_agent_start handler's signal aborts, the run ends aborted", async () => {
    const { harness, model } = await createHarness([{ text: "never" }]);
    let entered!: (signal: AbortSignal | undefined) => void;
    const hookEntered = new Promise<AbortSignal | undefined>((resolve) => {
      entered = resolve;
    });
    harness.on("before_agent_start", (_event, signal) => {
      entered(signal);
      return new Promise<undefined>((resolve) => signal?.addEventListener("abort", () => resolve(undefined)));
    });
    const running = harness.prompt("p");
    const signal = await hookEntered;
    expect(signal?.aborted).toBe(false);
    const aborting = harness.abort();
    expect(signal?.aborted).toBe(true);
    await aborting;
    expect((await running).stopReason).toBe("aborted");
    expect(model.calls).toHaveLength(0);
    expect(harness.actor.getSnapshot().children.turn).toBeUndefined();
  });

  it("ends a turn at once when a tool hook throws; the operation settles with the error reply", async () => {
    const { harness, model } = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "never asked" }],
      { tools: [echoTool()] },
    );
    harness.on("tool_call", () => {
      throw new Error("blocked by policy");
    });
    const { reply } = await harness.prompt("go");
    expect(reply).toMatchObject({
      stopReason: "error",
      errorMessage: 'Hook "tool_call" failed: blocked by policy',
    });
    expect(model.calls).toHaveLength(1);
    expect(harness.phase).toBe("idle");
  });
});
