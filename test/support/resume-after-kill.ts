import { expect } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import { INTERRUPTED_NOT_RERUN } from "../../src/harness/resume-run.js";
import { type AgentTool, defineTool, type Session } from "../../src/index.js";
import { scriptedModel } from "../../src/testing.js";
import { ProcessDriver, repoRoot, spawnTs } from "./cli-process.js";
import { texts } from "./harness-support.js";
import { testModel } from "./loop-harness.js";

/**
 * Starts tool-crash-child.ts on `store`, kills it with SIGKILL once its tool has started (after the
 * journal entry, before any result), then resumes the session in this process with `reopen()` and
 * checks what the `replay` policy promises: `"never"` answers the call with an error and runs
 * nothing; `"safe"` runs it once more with the key journaled before the killed process ran it.
 */
export async function checkResumeAfterKill(options: {
  store: string;
  sessionId: string;
  replay: "safe" | "never";
  schema?: string;
  reopen: () => Promise<Session>;
}): Promise<void> {
  const args = [
    options.store,
    options.sessionId,
    options.replay,
    ...(options.schema ? [options.schema] : []),
  ];
  const child = new ProcessDriver(spawnTs("test/support/tool-crash-child.ts", args, { cwd: repoRoot }));
  await child.waitFor("STARTED\n");
  child.child.kill("SIGKILL");
  await child.exited;

  const session = await options.reopen();
  const applied: unknown[] = [];
  const effect = defineTool({
    name: "effect",
    description: "Records its side effect",
    parameters: z.object({ target: z.string() }),
    execute: async (_args, ctx) => {
      applied.push((ctx as { idempotencyKey?: string }).idempotencyKey);
      return { content: [{ type: "text", text: "applied" }] };
    },
  });
  const model = scriptedModel([{ text: "finished" }]);
  const harness = new AgentHarness({
    session,
    model: testModel,
    streamFn: model,
    tools: [(options.replay === "safe" ? { ...effect, replay: "safe" } : effect) as AgentTool],
  });
  const reply = await harness.resume();
  expect(reply?.content).toEqual([{ type: "text", text: "finished" }]);
  const context = texts(session.buildContext().messages);
  if (options.replay === "safe") {
    // The key journaled before the killed process ran the tool.
    expect(applied).toEqual([`${options.sessionId}:call-1`]);
    expect(context).toEqual(["do the effect", "[toolCall]", "applied", "finished"]);
  } else {
    expect(applied).toEqual([]);
    expect(context).toEqual(["do the effect", "[toolCall]", INTERRUPTED_NOT_RERUN, "finished"]);
  }
  await session.close();
}
