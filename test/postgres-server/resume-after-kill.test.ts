import { describe, it } from "vitest";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { checkResumeAfterKill } from "../support/resume-after-kill.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("killed");

describe("a PostgreSQL session whose worker was killed mid-tool", () => {
  for (const replay of ["never", "safe"] as const) {
    it(`is taken over once the lease lapsed and resumed by the replay policy ("${replay}")`, {
      timeout: 60_000,
    }, async () => {
      const schema = server.schema();
      const repo = new PostgresSessionRepo({ pool: server.pool, schema });
      await repo.list(); // creates the schema before the child uses it
      await checkResumeAfterKill({
        store: process.env[DATABASE_URL_VARIABLE]!,
        sessionId: "killed",
        replay,
        schema,
        reopen: async () => {
          // The killed worker's lease is live until it expires; make it expire now.
          await server.pool.query(
            `UPDATE "${schema}".sessions SET lease_expires_at = now() WHERE id = 'killed'`,
          );
          return repo.open("killed");
        },
      });
    });
  }
});
