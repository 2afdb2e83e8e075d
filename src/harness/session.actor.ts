import { fromCallback } from "xstate";
import type { SessionCommand, SessionReply } from "../machines/harness/harness.events.js";
import type { Session } from "../storage/session.js";
import { errorText } from "../types/error-text.js";
import type { SessionRecorder } from "./session-recorder.js";

/**
 * The session as an actor: the single writer of `session` for the harness whose child it is. It takes
 * `SessionCommand`s in the order they arrive and answers each with a `SessionReply` to its parent
 * (a failure is an event, never a thrown error). The agent's events are recorded through `recorder`,
 * which holds setting changes made during a run until the turn ends.
 *
 * Contract: never throws; a command the session refuses (closed, unknown entry) answers `session.failed`.
 *
 * ```ts
 * import { createActor } from "xstate";
 * import { createHarnessMachine } from "agentchart/machines";
 * const harnessActor = createActor(createHarnessMachine({ session, model, streamFn })).start();
 * harnessActor.send({ type: "session.label", targetId: session.leafId!, label: "checkpoint" });
 * ```
 */
export function sessionActor(session: Session, recorder: SessionRecorder) {
  return fromCallback<SessionCommand>(({ receive, sendBack }) => {
    const failed = (command: SessionCommand["type"]) => (error: unknown) =>
      sendBack({ type: "session.failed", command, error: errorText(error) } satisfies SessionReply);
    const written = (entry: { id: string; type: string }) =>
      sendBack({ type: "session.written", entry: { id: entry.id, type: entry.type } } satisfies SessionReply);
    const report: SessionRecorder["onReport"] = (outcome) =>
      "written" in outcome ? written(outcome.written) : failed("session.append")(outcome.failed.error);
    recorder.onReport = report;
    receive((command) => {
      switch (command.type) {
        case "session.record":
          // A sub-agent's events (`agentPath`) go to its own session, not this one.
          if (command.event.agentPath === undefined) recorder.record(command.event);
          return;
        case "session.append":
          recorder.append(command.entry);
          return;
        case "session.label":
          session.setLabel(command.targetId, command.label).then(written, failed(command.type));
          return;
        case "session.branch":
          session
            .moveTo(command.targetId)
            .then(
              () => sendBack({ type: "session.branched", targetId: command.targetId } satisfies SessionReply),
              failed(command.type),
            );
          return;
        case "session.compact": {
          const { type: _type, ...compaction } = command;
          session.appendCompaction(compaction).then(written, failed(command.type));
          return;
        }
        case "session.flush":
          session
            .flush()
            .then(() => sendBack({ type: "session.flushed" } satisfies SessionReply), failed(command.type));
      }
    });
    return () => {
      if (recorder.onReport === report) recorder.onReport = undefined;
    };
  });
}
