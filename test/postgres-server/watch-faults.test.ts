import { filter, firstValueFrom, scan } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentClient,
  createClient,
  PostgresSessionRepo,
  type SessionUpdate,
} from "../../src/postgres.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";
import { TcpProxy } from "./tcp-proxy.js";

const server = serverPool("watchfault");
const url = process.env[DATABASE_URL_VARIABLE]!;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const textOf = (update: SessionUpdate) =>
  update.type === "entry" && update.entry.type === "message"
    ? String((update.entry.message as { content: unknown }).content)
    : undefined;

/** A client on a fresh schema through a proxy the test controls, and a repo writing directly. */
async function setup(heartbeatMs?: number) {
  const schema = server.schema();
  const repo = new PostgresSessionRepo({ pool: server.pool, schema });
  const proxy = await TcpProxy.start(url);
  const client: AgentClient = await createClient({
    connectionString: proxy.url,
    schema,
    pollMs: 100,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  });
  cleanups.push(async () => {
    await client.close();
    await proxy.close();
    await server.pool.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
  });
  return { schema, repo, proxy, client };
}

/** Resolves with the message texts a watch reported once it reported `last`. */
function textsUntil(client: AgentClient, sessionId: string, last: string): Promise<string[]> {
  return firstValueFrom(
    client.watch(sessionId, { afterSeq: 0 }).pipe(
      scan((texts, update) => {
        const text = textOf(update);
        return text === undefined ? texts : [...texts, text];
      }, [] as string[]),
      filter((texts) => texts.at(-1) === last),
    ),
  );
}

describe("watch() under connection faults", () => {
  it("a LISTEN connection gone silent (blackholed, never closed) is detected by the heartbeat and made again; the watch goes on with nothing lost or repeated", {
    timeout: 30_000,
  }, async () => {
    const { repo, proxy, client } = await setup(200);
    const session = await repo.create({ id: "w", cwd: "/w" });
    await session.appendMessage(user("first"));
    await session.flush();
    // Every later LISTEN connection's traffic vanishes from the next chunk on (the heartbeat's round trip).
    const silenced = proxy.blackholeWhen((_chunk, connection) => connection.sent.includes("LISTEN"));
    const seen = textsUntil(client, "w", "fourth");
    await silenced;
    for (const text of ["second", "third", "fourth"]) await session.appendMessage(user(text));
    await session.flush();
    expect(await seen).toEqual(["first", "second", "third", "fourth"]);
    const listens = proxy.connections.filter((connection) => connection.sent.includes("LISTEN"));
    expect(listens.length).toBeGreaterThanOrEqual(2); // the silent one, and the one made again
    await session.close();
  });

  it("1,000 watchers of one client share one LISTEN connection: a handful of connections in all, every watcher gets every entry", {
    timeout: 60_000,
  }, async () => {
    const { repo, proxy, client } = await setup();
    const sessions = await Promise.all(
      Array.from({ length: 10 }, (_, i) => repo.create({ id: `many${i}`, cwd: "/w" })),
    );
    const watchers = Array.from({ length: 1_000 }, (_, i) => textsUntil(client, `many${i % 10}`, "hello"));
    for (const session of sessions) await session.appendMessage(user("hello"));
    await Promise.all(sessions.map((session) => session.flush()));
    const all = await Promise.all(watchers);
    expect(all.every((texts) => texts.length === 1 && texts[0] === "hello")).toBe(true);
    console.log(
      `1,000 watchers: ${proxy.opened} connections through the proxy (client pool 4, LISTEN 1, queue)`,
    );
    expect(proxy.opened).toBeLessThanOrEqual(8);
    for (const session of sessions) await session.close();
  });
});
