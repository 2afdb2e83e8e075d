import { Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { quoteSchema } from "../../src/postgres/postgres-schema.js";
import { ReplyRecorder } from "../../src/postgres/reply-recorder.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { assistant } from "../support/compaction.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("subdeltas");

/** The events of one text delta of `message`, from the agent at `agentPath` (the root's: none). */
function textDelta(message: AssistantMessage, delta: string, agentPath?: string[]): HarnessEvent {
  return {
    type: "message_update",
    message,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: message },
    ...(agentPath ? { agentPath } : {}),
  };
}

describe("reply_deltas of a run with sub-agents", () => {
  it("records the root's streaming reply only: a sub-agent's deltas and its reply's end, interleaved with it, leave no trace", async () => {
    const schema = server.schema();
    const repo = new PostgresSessionRepo({ pool: server.pool, schema });
    const session = await repo.create({ id: "tree", cwd: "/w" });
    const errors: unknown[] = [];
    const recorder = new ReplyRecorder({
      pool: server.pool,
      s: quoteSchema(schema),
      schema,
      session,
      onError: (error) => errors.push(error),
      batchMs: 0,
    });
    const events = new Subject<HarnessEvent>();
    const following = recorder.follow(events);
    const root = assistant("root says hi");
    const child = assistant("child works");
    events.next({ type: "message_start", message: root });
    events.next(textDelta(root, "root says "));
    events.next({ type: "message_start", message: child, agentPath: ["s1"] });
    events.next(textDelta(child, "child ", ["s1"]));
    events.next(textDelta(root, "hi"));
    events.next(textDelta(child, "works", ["s1"]));
    // The child's reply ends: were it the session's, its deltas (the root's too) would be deleted.
    events.next({ type: "message_end", message: child, agentPath: ["s1"] });
    await recorder.settled();
    following.unsubscribe();
    const { rows } = await server.pool.query<{ delta: { delta?: string } }>(
      `SELECT delta FROM "${schema}".reply_deltas WHERE session_id = 'tree' ORDER BY seq`,
    );
    expect(rows.map((row) => row.delta.delta)).toEqual(["root says ", "hi"]);
    expect(errors).toEqual([]);
    await session.close();
  });
});
