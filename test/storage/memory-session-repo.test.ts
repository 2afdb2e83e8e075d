import { describe, expect, it } from "vitest";
import { MemorySessionRepo } from "../../src/index.js";
import { sessionRepoConformance } from "../../src/testing.js";

sessionRepoConformance(
  "MemorySessionRepo",
  ({ writeFault }) => ({
    repo: new MemorySessionRepo({ writeFault }),
  }),
  { describe, it, expect },
);
