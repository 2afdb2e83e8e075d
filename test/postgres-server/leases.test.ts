import { describe } from "vitest";
import { postgresRepoCases } from "../support/postgres-cases.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("leases");

describe("PostgresSessionRepo on PostgreSQL: leases, fencing, listing, migrations", () => {
  postgresRepoCases(() => server);
});
