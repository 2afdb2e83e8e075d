import { filter, firstValueFrom, ReplaySubject, share, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { NoticeListener } from "../../src/postgres/notice-listener.js";
import { CHANGE_CHANNEL } from "../../src/postgres/postgres-schema.js";
import { RunStore } from "../../src/postgres/run-store.js";
import { WatchRegistry, watchSession } from "../../src/postgres/session-watch.js";
import { PostgresSessionRepo, type SessionUpdate } from "../../src/postgres.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("watch");

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const textOf = (update: SessionUpdate) =>
  update.type === "entry" && update.entry.type === "message"
    ? (update.entry.message as { content: unknown }).content
    : update.type;

describe("watching a session", () => {
  for (const [how, listenUrl] of [
    ["over LISTEN/NOTIFY", process.env[DATABASE_URL_VARIABLE]!],
    ["by polling when LISTEN cannot be set up", "postgres://nobody@127.0.0.1:1/unreachable"],
  ] as const) {
    it(`reports the entries after a position, then new ones and run-state changes, ${how}`, async () => {
      const schema = server.schema();
      const repo = new PostgresSessionRepo({ pool: server.pool, schema });
      const session = await repo.create({ id: "watched", cwd: "/w" });
      await session.appendMessage(user("before"));
      await session.appendMessage(user("first"));
      await session.flush();
      const store = new RunStore(server.pool, `"${schema}"`);
      const listener = new NoticeListener({
        connectionString: listenUrl,
        channel: CHANGE_CHANNEL,
        retryMs: 50,
      });
      const source = {
        listener,
        pool: server.pool,
        s: `"${schema}"`,
        schema,
        store,
        pollMs: 50,
        watches: new WatchRegistry(),
      };
      // One watch, shared by the two readers below; ended when both are done.
      const updates = watchSession(source, "watched", { afterSeq: 1 }).pipe(
        share({ connector: () => new ReplaySubject<SessionUpdate>(), resetOnRefCountZero: true }),
      );
      const seen = firstValueFrom(updates.pipe(take(4), toArray()));
      // The first read reports what is there (ending with the run state); the rest arrives as written.
      await firstValueFrom(updates.pipe(filter((update) => update.type === "run_state")));
      await session.appendMessage(user("second"));
      await session.flush();
      await store.setState("watched", "running");
      expect((await seen).map(textOf)).toEqual(["first", "run_state", "second", "run_state"]);
      await session.close();
      await listener.close();
    });
  }
});
