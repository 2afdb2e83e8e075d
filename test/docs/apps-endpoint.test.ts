import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { isSessionError } from "../../src/types/session-error.js";
import { readRun, runInput } from "../support/ag-ui-server.js";
import { testModel } from "../support/harness-support.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-apps-endpoint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

const post = (body: unknown) =>
  new Request("http://127.0.0.1:3000/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the endpoint example of docs/apps.md", () => {
  it("serves a thread's first request (creating its session), and reopens it after an eviction", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    const repo = new JsonlSessionRepo({ root: join(scratch, "sessions") });
    const streamFn = scriptedModel([{ text: "Hello there." }, { text: "Still here." }]);
    // As the docs write it (model and streamFn are the app's).
    const handler = createAgUiHandler({
      harnessFor: async (threadId) => {
        const session = await repo.open(threadId).catch((error: unknown) => {
          if (isSessionError(error, "not_found")) return repo.create({ id: threadId });
          throw error;
        });
        return new AgentHarness({ model: testModel, streamFn, session });
      },
      onThreadEvicted: async (_threadId, harness) => {
        if (harness instanceof AgentHarness) await harness.session.close();
      },
    });

    const first = await handler(post(runInput("thread-1", "r1", "Hi")));
    expect(first.status).toBe(200);
    expect((await readRun(first)).at(-1)?.event.type).toBe("RUN_FINISHED");

    vi.setSystemTime(31 * 60_000);
    const later = await handler(post(runInput("thread-1", "r2", "Are you there?")));
    expect(later.status).toBe(200);
    const events = await readRun(later);
    expect(events.at(-1)?.event.type).toBe("RUN_FINISHED");
    const snapshot = events.find(({ event }) => event.type === "MESSAGES_SNAPSHOT")?.event;
    expect(JSON.stringify(snapshot)).toContain("Hello there.");
  });
});
