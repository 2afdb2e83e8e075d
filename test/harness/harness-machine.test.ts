import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AnyMachineSnapshot } from "xstate";
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths } from "xstate/graph";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { type HarnessMachineEvent, harnessMachine } from "../../src/machines/harness/harness.machine.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { standInCompaction, testModel } from "../support/harness-support.js";
import { user } from "../support/loop-harness.js";

// Model-based tests of the harness phase machine (docs/testing.md): one test per edge of the
// adjacency map, each driving a real AgentHarness (scripted model, stand-in compaction port) along
// the shortest path to the edge's source state and then across the edge, comparing the phases the
// harness went through with the states of the abstract path.

type Event = HarnessMachineEvent;
const input = { maxRetries: 1, overflowRecovery: true };
const turnDone = (verdict: "done" | "retryable" | "overflow", compactionDue = false): Event => ({
  type: "TURN_DONE",
  outcome: { verdict, compactionDue },
  reply: undefined,
});
const turnFailed: Event = { type: "TURN_FAILED", error: new Error("failed") };
const done = (id: "backoff" | "navigation", output?: unknown) =>
  ({ type: `xstate.done.actor.${id}`, output, actorId: id }) as Event;
const compactionDone = (compacted: boolean): Event => ({
  type: "xstate.done.actor.compaction",
  output: { compacted },
  actorId: "compaction",
});
const failure = (id: "compaction" | "navigation") =>
  ({ type: `xstate.error.actor.${id}`, error: new Error("failed"), actorId: id }) as Event;

/** The events the real harness can produce in each state. */
function eventsIn(snapshot: AnyMachineSnapshot): Event[] {
  switch (snapshot.value) {
    case "idle":
      return [
        { type: "PROMPT", messages: [] },
        { type: "COMPACT", operation: { kind: "compact" } },
        { type: "NAVIGATE", operation: { kind: "navigate", targetId: "root", options: {} } },
      ];
    case "turn":
      return [
        turnDone("done"),
        turnDone("done", true),
        turnDone("retryable"),
        turnDone("overflow"),
        turnFailed,
      ];
    case "retry":
      return [done("backoff"), { type: "ABORT" }];
    case "compaction":
      return snapshot.context.compactionReason === "manual"
        ? [compactionDone(true), failure("compaction"), { type: "ABORT" }]
        : [compactionDone(true), compactionDone(false), { type: "ABORT" }];
    default:
      return [done("navigation"), failure("navigation"), { type: "ABORT" }];
  }
}

const serializeState = (snapshot: AnyMachineSnapshot) =>
  snapshot.value === "idle" || snapshot.value === "branchSummary"
    ? String(snapshot.value)
    : JSON.stringify([
        snapshot.value,
        snapshot.context.attempt,
        snapshot.context.overflowRecovered,
        snapshot.context.compactionReason,
      ]);
const options = { events: eventsIn, serializeState, input };
const edges = adjacencyMapToArray(getAdjacencyMap(harnessMachine, options));
const shortest = new Map(
  getShortestPaths(harnessMachine, options).map((path) => [serializeState(path.state), path]),
);

/** The events the harness produces itself (the end of a turn or of an invoked actor). */
const isAutomatic = (event: Event) => event.type.startsWith("xstate.") || event.type.startsWith("TURN_");

/** Collapses repeats: the harness reports phase changes, the path lists a state per step. */
const changes = (phases: string[]) => phases.filter((phase, i) => i === 0 || phase !== phases[i - 1]);

/**
 * Runs the events on a real harness. A pre-pass turns the outcome events into the scripted model's
 * replies, the compaction port's threshold answers and the backoff behaviour; then the user events
 * (PROMPT, COMPACT, NAVIGATE, ABORT) are performed when the harness reaches the matching phase.
 */
async function drive(events: Event[], expected: string[]): Promise<string[]> {
  const turns: ScriptedTurn[] = [];
  const dueAnswers: boolean[] = [];
  const holdBackoff: boolean[] = [];
  const navigations: ("plain" | "error" | "hang")[] = [];
  let failWrites = false;
  events.forEach((event, i) => {
    const next = events[i + 1];
    switch (event.type) {
      case "TURN_DONE": {
        const { verdict, compactionDue } = event.outcome;
        if (verdict === "done") dueAnswers.push(compactionDue);
        turns.push(
          verdict === "done"
            ? { text: "ok" }
            : { error: verdict === "retryable" ? "429 rate limited" : "maximum context length exceeded" },
        );
        break;
      }
      case "TURN_FAILED":
        turns.push(() => {
          failWrites = true;
          return { text: "ok" };
        });
        break;
      case "xstate.done.actor.compaction":
        turns.push(event.output.compacted ? { text: "SUMMARY" } : { error: "summariser down" });
        break;
      case "xstate.error.actor.compaction":
        turns.push({ error: "summariser down" });
        break;
      case "NAVIGATE":
        navigations.push(
          next?.type === "ABORT"
            ? "hang"
            : next?.type === "xstate.error.actor.navigation"
              ? "error"
              : "plain",
        );
        if (next?.type === "ABORT") turns.push({ hang: true, text: "…" });
        if (next?.type === "xstate.error.actor.navigation") turns.push({ error: "summariser down" });
        break;
      case "ABORT": {
        // ABORT lands in retry (hold the backoff), compaction (the summariser hangs) or branchSummary
        // (prepared by NAVIGATE above).
        const previous = events[i - 1];
        if (previous?.type === "TURN_DONE" && previous.outcome.verdict === "retryable") {
          holdBackoff.push(true);
        } else if (previous?.type === "COMPACT" || previous?.type === "TURN_DONE") {
          turns.push({ hang: true, text: "…" });
        }
        break;
      }
      case "xstate.done.actor.backoff":
        holdBackoff.push(false);
        break;
    }
  });
  const port = { ...standInCompaction(), shouldCompact: () => dueAnswers.shift() ?? false };
  const repo = new MemorySessionRepo({ writeFault: () => (failWrites ? new Error("disk full") : undefined) });
  const session = await repo.create({ cwd: "/mbt" });
  const root = await session.appendMessage(user("root"));
  const harness = new AgentHarness({
    session,
    model: testModel,
    streamFn: scriptedModel(turns),
    compactionPort: port,
    retry: {
      maxRetries: input.maxRetries,
      baseDelayMs: 0,
      maxDelayMs: 0,
      sleep: (_ms, signal) =>
        holdBackoff.shift()
          ? new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
          : Promise.resolve(),
    },
  });
  const observed: string[] = [];
  harness.phase$.subscribe((phase) => observed.push(phase));
  const reached = (count: number) =>
    firstValueFrom(harness.phase$.pipe(filter(() => changes(observed).length >= count)));
  let step = 1;
  for (const event of events) {
    step++;
    if (isAutomatic(event)) continue;
    await reached(step - 1);
    if (event.type === "ABORT") {
      void harness.abort();
      continue;
    }
    await harness.waitForIdle();
    if (event.type === "PROMPT") void harness.prompt("p").catch(() => {});
    if (event.type === "COMPACT") {
      await session.appendMessage(user("pad"));
      void harness.compact().catch(() => {});
    }
    if (event.type === "NAVIGATE") {
      await session.appendMessage(user("pad"));
      const kind = navigations.shift();
      void harness.navigateTree(root.id, { summarize: kind !== "plain" }).catch(() => {});
    }
  }
  await reached(expected.length);
  const result = changes(observed).slice(0, expected.length);
  await harness.abort();
  return result;
}

const eventDetail = (event: Event) =>
  "outcome" in event ? JSON.stringify(event.outcome) : "output" in event ? JSON.stringify(event.output) : "";

describe("harness phase machine (model-based, one test per edge)", () => {
  it("has the documented phases and a reasonable number of edges", () => {
    const phases = new Set(edges.flatMap((edge) => [String(edge.state.value), String(edge.nextState.value)]));
    expect([...phases].sort()).toEqual(["branchSummary", "compaction", "idle", "retry", "turn"]);
    expect(edges.length).toBeGreaterThan(20);
  });

  it.each(
    edges.map((edge) => ({
      name: `${serializeState(edge.state)} --${edge.event.type}${eventDetail(edge.event)}--> ${serializeState(edge.nextState)}`,
      edge,
    })),
  )("$name", async ({ edge }) => {
    const path = shortest.get(serializeState(edge.state))!;
    const steps = path.steps.filter((s) => (s.event.type as string) !== "xstate.init");
    const events = [...steps.map((s) => s.event), edge.event];
    const expected = changes([
      "idle",
      ...steps.map((s) => String(s.state.value)),
      String(edge.nextState.value),
    ]);
    expect(await drive(events, expected)).toEqual(expected);
  });
});
