import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/index.js";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("paused");

describe("a writer process paused past its lease (SIGSTOP … SIGCONT)", () => {
  it("has its late writes refused with `fenced`; the session holds exactly what it acknowledged, then the successor's", {
    timeout: 60_000,
  }, async () => {
    const schema = server.schema();
    const repo = new PostgresSessionRepo({ pool: server.pool, schema });
    await repo.list(); // creates the schema before the child uses it
    const url = process.env[DATABASE_URL_VARIABLE]!;
    const child = new ProcessDriver(
      spawnTs("test/support/lease-zombie-child.ts", [url, schema, "paused"], { cwd: repoRoot }),
    );
    await child.waitFor("ACK zombie 3\n");
    child.child.kill("SIGSTOP");
    // Paused past its lease: the lease lapses (made to lapse now) and another process takes over.
    await server.pool.query(`UPDATE "${schema}".sessions SET lease_expires_at = now() WHERE id = 'paused'`);
    const successor = await repo.open("paused");
    await successor.appendMessage({ role: "user", content: "successor", timestamp: Date.now() });
    await successor.flush();
    child.child.kill("SIGCONT");
    await child.waitFor("REFUSED fenced\n");
    expect(await child.exited).toBe(0);
    await successor.close();

    const acknowledged = [...child.output.matchAll(/^ACK (.*)$/gm)].map((match) => match[1]);
    const reopened = await repo.open("paused");
    const stored = reopened
      .getEntries()
      .map((entry) => ((entry as { message: AgentMessage }).message as { content: string }).content);
    expect(stored).toEqual([...acknowledged, "successor"]);
    await reopened.close();
  });
});
