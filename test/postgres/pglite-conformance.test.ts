import { afterAll, describe, expect, it } from "vitest";
import { PostgresSessionRepo } from "../../src/postgres.js";
import { sessionRepoConformance } from "../../src/testing.js";
import { PglitePool } from "../support/pglite-pool.js";

// One PGlite database for the file (starting one takes seconds); each test gets its own schema.
const pool = new PglitePool();
afterAll(() => pool.close());
let schemas = 0;

sessionRepoConformance(
  "PostgresSessionRepo on PGlite",
  ({ writeFault }) => {
    const schema = `conformance_${++schemas}`;
    return {
      repo: new PostgresSessionRepo({ pool, schema, writeFault }),
      sibling: () => new PostgresSessionRepo({ pool, schema }),
    };
  },
  { describe, it, expect },
);
