import pg from "pg";
import { describe, expect, it } from "vitest";
import { CHANGE_CHANNEL } from "../../src/postgres/postgres-schema.js";
import { messageTexts, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("matrix");
const SESSIONS = 30;
const slow = { WORKER_LATENCY: "1" };

/** Resolves once every session's run state is `idle`, woken by the database's change notices. */
async function allIdle(schema: string): Promise<void> {
  const listener = new pg.Client({ connectionString: fixture.url });
  await listener.connect();
  try {
    await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
    await new Promise<void>((resolve, reject) => {
      const check = () =>
        fixture.server.pool
          .query<{ idle: number }>(`SELECT count(*)::int AS idle FROM "${schema}".runs WHERE state = 'idle'`)
          .then(({ rows }) => {
            if (rows[0]!.idle === SESSIONS) resolve();
          }, reject);
      listener.on("notification", (notice) => {
        if (notice.payload?.startsWith(`${schema}/`)) void check();
      });
      void check();
    });
  } finally {
    await listener.end();
  }
}

const faults = [
  { name: "(a) kill -9 during a model call", mode: "hang-model", marker: "MODEL\n", signal: "SIGKILL" },
  {
    name: "(b) kill -9 after the journal entry, before the side effect",
    mode: "hang-before",
    marker: "STARTED ",
    signal: "SIGKILL",
  },
  {
    name: "(c) kill -9 after the side effect, before the result",
    mode: "hang-after",
    marker: "APPLIED ",
    signal: "SIGKILL",
  },
  {
    name: "(d) SIGSTOP past the lease, then SIGCONT",
    mode: "pause-in-tool",
    marker: "STARTED ",
    signal: "SIGSTOP",
  },
] as const;

describe("fault matrix: 3 worker processes, 30 sessions, replies of 150–300 ms, a side effect into an idempotent sink", () => {
  for (const fault of faults) {
    it(`${fault.name}: every session finishes, no entry lost or duplicated, every key applied once`, {
      timeout: 120_000,
    }, async () => {
      const { schema, client, repo } = await fixture.setup();
      const workers = await Promise.all([
        fixture.startWorker(schema, fault.mode, undefined, slow),
        fixture.startWorker(schema, "normal", undefined, slow),
        fixture.startWorker(schema, "normal", undefined, slow),
      ]);
      const victim = workers[0]!;
      for (let i = 0; i < SESSIONS; i++) await client.submit(`s${i}`, `effect t${i}`, { cwd: "/w" });
      await victim.waitFor(fault.marker);
      victim.child.kill(fault.signal);
      if (fault.signal === "SIGKILL") await victim.exited;

      await allIdle(schema);
      if (fault.signal === "SIGSTOP") {
        // Woken after another worker finished its sessions: its late writes are refused.
        victim.child.kill("SIGCONT");
        await victim.waitFor("FENCED ");
        victim.child.kill("SIGKILL");
        await victim.exited;
      }

      for (let i = 0; i < SESSIONS; i++) {
        expect(await messageTexts(repo, `s${i}`)).toEqual([
          `effect t${i}`,
          "[toolCall]",
          "applied",
          "done: applied",
        ]);
      }
      const effects = await fixture.effects(schema);
      expect(effects.map((effect) => effect.key)).toEqual(
        Array.from({ length: SESSIONS }, (_, i) => `s${i}:call-1`).sort(),
      );
      const replayed = effects.filter((effect) => effect.attempts > 1).length;
      const { rows } = await fixture.server.pool.query<{ taken_over: number }>(
        `SELECT count(*)::int AS taken_over FROM "${schema}".sessions WHERE lease_epoch > 2`,
      );
      console.log(
        `| ${fault.name} | ${SESSIONS}/${SESSIONS} | ${SESSIONS * 4} | ${effects.length} | ${replayed} | ${rows[0]!.taken_over} | ${fault.signal === "SIGSTOP" ? "refused (fenced)" : "—"} |`,
      );
    });
  }
});
