/**
 * The session actor (`session`, a child of the harness machine) is the harness's writer of its
 * session: it takes commands as events and answers each with an event to the harness (seen here
 * through XState's inspection API, as any inspector sees them).
 */
import { describe, expect, it } from "vitest";
import { type AnyActorRef, type AnyEventObject, createActor, type InspectionEvent, waitFor } from "xstate";
import { createHarnessMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { testModel, user } from "../support/loop-harness.js";

/** The session actor's replies to the harness, in order, and a promise of the next one. */
function replyLog() {
  const replies: AnyEventObject[] = [];
  let waiting: ((event: AnyEventObject) => void) | undefined;
  const inspect = (event: InspectionEvent) => {
    if (event.type !== "@xstate.event" || (event.sourceRef as AnyActorRef | undefined)?.id !== "session")
      return;
    if (!event.event.type.startsWith("session.")) return;
    replies.push(event.event);
    waiting?.(event.event);
    waiting = undefined;
  };
  const next = () => new Promise<AnyEventObject>((resolve) => (waiting = resolve));
  return { replies, inspect, next };
}

async function harnessAfterOneTurn() {
  const session = await new MemorySessionRepo().create({ cwd: "/w" });
  const log = replyLog();
  const actor = createActor(
    createHarnessMachine({ session, model: testModel, streamFn: scriptedModel([{ text: "Hello!" }]) }),
    { inspect: log.inspect },
  );
  actor.start();
  actor.send({ type: "PROMPT", messages: [user("Hi")] });
  await waitFor(actor, (snapshot) => snapshot.matches("idle"));
  return { session, actor, log };
}

describe("the session actor", () => {
  it("is the harness's child `session`; it records the turn and answers each write", async () => {
    const { session, actor, log } = await harnessAfterOneTurn();
    expect(actor.getSnapshot().children.session).toBeDefined();
    expect(session.buildContext().messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(log.replies.map((event) => `${event.type} ${event.entry?.type}`)).toEqual([
      "session.written message",
      "session.written message",
    ]);
  });

  it("appends, labels, branches and flushes on command, and answers a refused command with session.failed", async () => {
    const { session, actor, log } = await harnessAfterOneTurn();
    const [prompt] = session.getBranch();

    let answer = log.next();
    actor.send({ type: "session.append", entry: { type: "custom", customType: "note", data: { n: 1 } } });
    expect(await answer).toMatchObject({ type: "session.written", entry: { type: "custom" } });
    expect(session.getBranch().at(-1)).toMatchObject({ type: "custom", customType: "note", data: { n: 1 } });

    answer = log.next();
    actor.send({ type: "session.label", targetId: prompt!.id, label: "start" });
    expect(await answer).toMatchObject({ type: "session.written", entry: { type: "label" } });
    expect(session.getLabel(prompt!.id)).toBe("start");

    answer = log.next();
    actor.send({ type: "session.branch", targetId: prompt!.id });
    expect(await answer).toEqual({ type: "session.branched", targetId: prompt!.id });
    expect(session.leafId).toBe(prompt!.id);

    answer = log.next();
    actor.send({ type: "session.label", targetId: "no-such-entry", label: "x" });
    expect(await answer).toMatchObject({ type: "session.failed", command: "session.label" });
    expect(log.replies.at(-1)?.error).toMatch(/no-such-entry/);

    answer = log.next();
    actor.send({ type: "session.flush" });
    expect(await answer).toEqual({ type: "session.flushed" });
  });

  it("holds a setting appended during a run until the run's messages are written", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/w" });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([{ text: "Hello!" }]);
    const actor = createActor(
      createHarnessMachine({
        session,
        model: testModel,
        streamFn: async (...args) => {
          await gate;
          return model(...args);
        },
      }),
    );
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("Hi")] });
    await waitFor(actor.getSnapshot().children.agent as AnyActorRef, (snapshot) =>
      snapshot.hasTag("streaming"),
    );
    actor.send({ type: "session.append", entry: { type: "thinking_level_change", thinkingLevel: "high" } });
    release();
    await waitFor(actor, (snapshot) => snapshot.matches("idle"));
    expect(session.getBranch().map((entry) => entry.type)).toEqual([
      "message",
      "message",
      "thinking_level_change",
    ]);
  });
});
