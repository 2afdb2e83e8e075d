import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { sessionRepoConformance } from "../../src/testing.js";

sessionRepoConformance(
  "JsonlSessionRepo",
  ({ writeFault }) => {
    const root = mkdtempSync(join(tmpdir(), "agentchart-jsonl-"));
    return {
      repo: new JsonlSessionRepo({ root, writeFault }),
      sibling: () => new JsonlSessionRepo({ root }),
      cleanup: () => rmSync(root, { recursive: true, force: true }),
    };
  },
  { describe, it, expect },
);

sessionRepoConformance(
  "JsonlSessionRepo (fsync)",
  ({ writeFault }) => {
    const root = mkdtempSync(join(tmpdir(), "agentchart-jsonl-fsync-"));
    return {
      repo: new JsonlSessionRepo({ root, writeFault, durability: "fsync" }),
      cleanup: () => rmSync(root, { recursive: true, force: true }),
    };
  },
  { describe, it, expect },
);
