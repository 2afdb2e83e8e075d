import { afterAll, describe } from "vitest";
import { PglitePool } from "../support/pglite-pool.js";
import { postgresRepoCases } from "../support/postgres-cases.js";

const pool = new PglitePool();
afterAll(() => pool.close());
let schemas = 0;

describe("PostgresSessionRepo on PGlite: leases, fencing, listing, migrations", () => {
  postgresRepoCases(() => ({ pool, schema: () => `leases_${++schemas}` }));
});
