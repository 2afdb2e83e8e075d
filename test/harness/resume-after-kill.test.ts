import { afterEach, beforeEach, describe, it } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { checkResumeAfterKill } from "../support/resume-after-kill.js";
import { tempRoot } from "../support/session-files.js";

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ root, remove } = tempRoot("agentchart-kill-"));
});
afterEach(() => remove());

describe("a JSONL session whose process was killed mid-tool", () => {
  for (const replay of ["never", "safe"] as const) {
    it(`resumes in a new process by the tool's replay policy ("${replay}")`, {
      timeout: 60_000,
    }, async () => {
      await checkResumeAfterKill({
        store: root,
        sessionId: `killed-${replay}`,
        replay,
        reopen: () => new JsonlSessionRepo({ root }).open(`killed-${replay}`),
      });
    });
  }
});
