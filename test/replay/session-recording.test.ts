import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { recordingOfSession, replaySession } from "../../src/harness/replay-session.js";
import {
  SESSION_RECORDING_PREFIX,
  type SessionRecordedModelCall,
  type SessionRecordedStep,
} from "../../src/harness/session-recording.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { RecordingError } from "../../src/replay/recording-format.js";
import type { CustomEntry } from "../../src/storage/entries.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import type { Session } from "../../src/storage/session.js";
import { parseSessionText } from "../../src/storage/session-file.js";
import type { SessionTreeView } from "../../src/storage/session-tree.js";
import { testModel } from "../support/loop-harness.js";
import { PglitePool } from "../support/pglite-pool.js";
import { plain, stepEntryId } from "./session-recording-support.js";
import { deleteTool, weatherTool } from "./support.js";

/** Every live step of `harness` against the snapshot `replaySession` rebuilds at its entry. */
function expectEveryStepReplays(harness: AgentHarness, session: Pick<SessionTreeView, "getBranch">): void {
  const live = harness.recording!.steps;
  expect(live.length).toBeGreaterThan(0);
  for (const step of live) {
    const replayed = replaySession(session, { upTo: stepEntryId(session, step.index) });
    expect(replayed.step?.index).toBe(step.index);
    expect(plain(replayed.snapshot)).toEqual(plain(step.snapshot));
  }
}

async function recordedHarness(session: Session, turns: ScriptedTurn[]) {
  const { tool, executions } = weatherTool();
  const model = scriptedModel(turns);
  const harness = new AgentHarness({
    session,
    model: testModel,
    streamFn: model,
    tools: [tool, deleteTool],
    record: true,
  });
  return { harness, model, executions };
}

describe("the session is the recording (record: true on a harness)", () => {
  it("keeps the recording as custom entries, each step's transcript as references to the session's messages", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/work" });
    const { harness } = await recordedHarness(session, [
      { toolCalls: [{ id: "call_w1", name: "weather", arguments: { city: "Oslo" } }] },
      { text: "Oslo: 21°C." },
    ]);
    await harness.prompt("Oslo?");
    await session.flush();

    const custom = session
      .getBranch()
      .filter(
        (entry): entry is CustomEntry =>
          entry.type === "custom" && entry.customType.startsWith(SESSION_RECORDING_PREFIX),
      );
    expect(custom[0]).toMatchObject({
      customType: `${SESSION_RECORDING_PREFIX}header`,
      data: { format: "agentchart.recording", version: 1, source: "harness" },
    });
    const steps = custom.filter((entry) => entry.customType === `${SESSION_RECORDING_PREFIX}step`);
    expect(steps.map((entry) => (entry.data as SessionRecordedStep).step)).toEqual([
      "turn_start",
      "tools_settled",
      "turn_start",
      "run_end",
    ]);
    // No message is written twice: the stored snapshots hold no transcript, only entry references —
    // here one run of the branch's four message entries, from the first to the last.
    const last = steps.at(-1)!.data as SessionRecordedStep;
    expect(last.snapshot.snapshot.context.messages).toEqual([]);
    const messageIds = session
      .getBranch()
      .filter((entry) => entry.type === "message")
      .map((entry) => entry.id);
    expect(messageIds).toHaveLength(4);
    expect(last.messages).toEqual([{ entry: messageIds[0], through: messageIds[3] }]);

    expectEveryStepReplays(harness, session);
    const replayed = replaySession(session);
    expect(replayed.step?.step).toBe("run_end");
    expect(replayed.recording.modelCalls).toHaveLength(2);
    // A model request's messages are the session's messages again: stored as references, put back equal.
    const storedCalls = custom.filter(
      (entry) => entry.customType === `${SESSION_RECORDING_PREFIX}model_call`,
    );
    expect(storedCalls.map((entry) => (entry.data as SessionRecordedModelCall).request.messages)).toEqual([
      [],
      [],
    ]);
    expect(plain(replayed.recording.modelCalls)).toEqual(plain(harness.recording!.modelCalls));
    expect(replayed.recording.toolCalls).toMatchObject([{ toolCallId: "call_w1", args: { city: "Oslo" } }]);
  });

  it("replays with zero model or tool calls: the restored step continues as the live agent would", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/work" });
    const { harness, model, executions } = await recordedHarness(session, [
      { toolCalls: [{ id: "call_w2", name: "weather", arguments: { city: "Rome" } }] },
      { text: "Rome: 21°C." },
    ]);
    await harness.prompt("Rome?");
    const calls = model.calls.length;
    const settled = harness.recording!.steps.find((step) => step.step === "tools_settled")!;
    const { snapshot } = replaySession(session, { upTo: stepEntryId(session, settled.index) });
    expect(model.calls.length).toBe(calls);
    expect(executions).toEqual(["Rome"]);
    expect(snapshot?.snapshot.value).toEqual(settled.value);
    expect(snapshot?.snapshot.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
    ]);
  });

  it("goes on with the session's recording when a harness is reopened on it: one header, steps numbered on", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/work" });
    const first = await recordedHarness(session, [{ text: "First." }]);
    await first.harness.prompt("One");
    await first.harness.close();
    const firstSteps = first.harness.recording!.steps.length;
    const second = await recordedHarness(session, [
      { toolCalls: [{ id: "call_r2", name: "weather", arguments: { city: "Bern" } }] },
      { text: "Bern: 21°C." },
    ]);
    await second.harness.prompt("Two");
    await session.flush();

    const headers = session
      .getBranch()
      .filter((entry) => entry.type === "custom" && entry.customType === `${SESSION_RECORDING_PREFIX}header`);
    expect(headers).toHaveLength(1);
    const replayed = replaySession(session);
    const steps = replayed.recording.steps;
    expect(steps.map((step) => step.index)).toEqual(steps.map((_, index) => index));
    expect(steps).toHaveLength(firstSteps + second.harness.recording!.steps.length);
    expect(plain(replayed.snapshot)).toEqual(plain(second.harness.recording!.steps.at(-1)!.snapshot));
    expect(replayed.snapshot!.snapshot.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    await second.harness.close();
  });

  it("refuses a session without a recording, an unknown entry, and a step whose message is gone", async () => {
    const plainSession = await new MemorySessionRepo().create({ cwd: "/work" });
    await plainSession.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    expect(() => replaySession(plainSession)).toThrow(RecordingError);
    expect(() => replaySession(plainSession)).toThrow(/holds no recording on this branch/);
    expect(() => replaySession(plainSession, { upTo: "nope" })).toThrow(/nope/);

    const session = await new MemorySessionRepo().create({ cwd: "/work" });
    const { harness } = await recordedHarness(session, [{ text: "Hello." }]);
    await harness.prompt("Hi");
    const entries = session.getBranch();
    // The same entries without the first message: the first step referring to it has nothing to point at.
    const firstMessage = entries.find((entry) => entry.type === "message")!;
    const step = entries.find(
      (entry) =>
        entry.type === "custom" &&
        entry.customType === `${SESSION_RECORDING_PREFIX}step` &&
        (entry.data as SessionRecordedStep).messages.some(
          (ref) => "entry" in ref && ref.entry === firstMessage.id,
        ),
    )!;
    const kept = entries.filter((entry) => entry !== firstMessage);
    const broken = { getBranch: () => kept };
    const error = (() => {
      try {
        replaySession(broken);
      } catch (caught) {
        return caught as RecordingError;
      }
    })();
    expect(error).toBeInstanceOf(RecordingError);
    expect(error?.code).toBe("invalid");
    expect(error?.message).toContain(`session entry ${step.id}`);
    expect(error?.message).toContain(`message entry ${firstMessage.id}`);
  });

  it("property: random scripted runs with random steer, abort and approval timings replay the live snapshot at every step", async () => {
    const turn = fc.oneof(
      fc.constant<ScriptedTurn>({ text: "A plain answer, in a few deltas." }),
      fc.constant<ScriptedTurn>({ toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] }),
      fc.constant<ScriptedTurn>({ toolCalls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] }),
      fc.constant<ScriptedTurn>({
        toolCalls: [
          { name: "weather", arguments: { city: "Lima" } },
          { name: "delete_file", arguments: { path: "/tmp/y" } },
        ],
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 5 }),
        fc.option(fc.nat({ max: 40 })),
        fc.option(fc.nat({ max: 60 })),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        async (turns, steerAt, abortAt, approvals) => {
          const session = await new MemorySessionRepo().create({ cwd: "/work" });
          const { harness } = await recordedHarness(session, [
            ...turns,
            { text: "Done." },
            { text: "Done again." },
          ]);
          let seen = 0;
          let decided = 0;
          harness.agent.subscribe((event) => {
            seen++;
            if (seen === steerAt) harness.steer("Also: be brief.");
            if (seen === abortAt) void harness.abort();
            if (event.type === "tool_approval_request") {
              const approve = approvals[decided++ % approvals.length];
              queueMicrotask(() => {
                // A person answers what is still asked: an abort may have ended the wait meanwhile.
                if (!harness.awaitingApproval.some((call) => call.toolCallId === event.toolCallId)) return;
                if (approve) harness.approveToolCall(event.toolCallId);
                else harness.denyToolCall(event.toolCallId, "no");
              });
            }
          });
          await harness.prompt("Go").catch(() => {});
          await harness.waitForIdle();
          await session.flush();
          expectEveryStepReplays(harness, session);
          await harness.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("a harness recorded on PostgreSQL (PGlite)", () => {
  const pool = new PglitePool();
  afterAll(() => pool.close());

  it("replays from its JSONL export, every step", async () => {
    const repo = new PostgresSessionRepo({ pool, schema: "replay_session" });
    const session = await repo.create({ cwd: "/work" });
    const { harness } = await recordedHarness(session, [
      { toolCalls: [{ id: "call_p1", name: "delete_file", arguments: { path: "/tmp/z" } }] },
      { text: "Deleted." },
    ]);
    harness.agent.subscribe((event) => {
      if (event.type === "tool_approval_request")
        queueMicrotask(() => harness.approveToolCall(event.toolCallId));
    });
    await harness.prompt("Delete /tmp/z");
    await harness.waitForIdle();
    await session.flush();
    const exported = parseSessionText(await repo.exportJsonl(session.id));
    expect(harness.recording!.steps.map((step) => step.step)).toContain("awaiting_human");
    expectEveryStepReplays(harness, exported.tree);
    const replayed = recordingOfSession(exported.tree);
    expect(replayed.commands.map((entry) => entry.command.type)).toEqual(
      harness.recording!.commands.map((entry) => entry.command.type),
    );
    await harness.close();
    await session.close();
  });
});
