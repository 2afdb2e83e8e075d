import { afterAll, describe } from "vitest";
import { PglitePool } from "../support/pglite-pool.js";
import { jsonlRoundTripCases } from "../support/postgres-jsonl-cases.js";

const pool = new PglitePool();
afterAll(() => pool.close());
let schemas = 0;

describe("PostgresSessionRepo on PGlite: JSONL import and export", () => {
  jsonlRoundTripCases(() => ({ pool, schema: () => `round_trip_${++schemas}` }));
});
