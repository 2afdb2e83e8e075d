import { describe } from "vitest";
import { jsonlRoundTripCases } from "../support/postgres-jsonl-cases.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("round_trip");

describe("PostgresSessionRepo on PostgreSQL: JSONL import and export", () => {
  jsonlRoundTripCases(() => server);
});
