import { describe, expect, it } from "vitest";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { sessionRepoConformance } from "../../src/testing.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("conformance");

sessionRepoConformance(
  "PostgresSessionRepo on PostgreSQL",
  ({ writeFault }) => {
    const schema = server.schema();
    return {
      repo: new PostgresSessionRepo({ pool: server.pool, schema, writeFault }),
      sibling: () => new PostgresSessionRepo({ pool: server.pool, schema }),
    };
  },
  { describe, it, expect },
);
