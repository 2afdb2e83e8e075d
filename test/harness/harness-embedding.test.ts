/**
 * The harness machine is embeddable like the agent machine: `createHarnessMachine(options)` in a
 * user's `setup({ actors })`, its child `agent` in the same actor system, and plain XState persistence
 * of the user's app — persisted by another process while the agent's call waits for approval, restored
 * here over the reopened session — after which the approval runs the call exactly once and the turn
 * is recorded in the session.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AnyActorRef, createActor, waitFor } from "xstate";
import { createHarnessMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { HARNESS_APP_REPLIES, harnessAppMachine } from "../support/embedded-harness-app.js";
import { roles, texts } from "../support/harness-support.js";
import { user } from "../support/loop-harness.js";
import { refundModel } from "../support/refund-tool.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-harness-embedding-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);

describe("the harness machine, embedded", () => {
  it("runs a prompt sent as PROMPT with messages and records the turn in its session", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/w" });
    const actor = createActor(
      createHarnessMachine({ session, model: refundModel, streamFn: scriptedModel([{ text: "Hello!" }]) }),
    );
    actor.start();
    expect(actor.getSnapshot().children.agent?.getSnapshot().value).toBe("idle");
    actor.send({ type: "PROMPT", messages: [user("Hi")] });
    expect(actor.getSnapshot().value).toBe("turn");
    await waitFor(actor, (snapshot) => snapshot.matches("idle"));
    await session.flush();
    const messages = session.buildContext().messages;
    expect(roles(messages)).toEqual(["user", "assistant"]);
    expect(texts(messages)).toEqual(["Hi", "Hello!"]);
  });

  it("refuses a second running actor of the machine of one session; once the first stopped, another runs", async () => {
    const session = await new MemorySessionRepo().create({ cwd: "/w" });
    const machine = createHarnessMachine({
      session,
      model: refundModel,
      streamFn: scriptedModel([{ text: "Again." }]),
    });
    const first = createActor(machine).start();
    const second = createActor(machine);
    const failed = new Promise<unknown>((resolve) => second.subscribe({ error: resolve }));
    second.start();
    await expect(failed).resolves.toMatchObject({
      message: expect.stringContaining("create one machine per harness actor"),
    });
    first.stop();
    const third = createActor(machine).start();
    third.send({ type: "PROMPT", messages: [user("Hi")] });
    await waitFor(third, (snapshot) => snapshot.matches("idle"));
    expect(texts(session.buildContext().messages)).toEqual(["Hi", "Again."]);
  });

  it("restores the user's app persisted by another process while a call waits for approval: the call runs once", async () => {
    const root = join(scratch, "sessions");
    const effects = join(scratch, "refunds.log");
    const child = await runTs("test/support/embedded-harness-child.ts", [root, effects], { cwd: repoRoot });
    expect(child.code, child.stderr).toBe(0);
    expect(lines(effects)).toEqual([]); // not approved there
    const persisted = JSON.parse(child.stdout.trim().split("\n").at(-1)!);

    const session = await new JsonlSessionRepo({ root }).open("embedded-harness");
    const app = createActor(harnessAppMachine({ session, replies: HARNESS_APP_REPLIES.slice(1), effects }), {
      snapshot: persisted,
    });
    app.start();
    const harness = app.getSnapshot().children.harness as AnyActorRef;
    const agent = harness.getSnapshot().children.agent as AnyActorRef;
    expect(harness.getSnapshot().value).toBe("turn");
    expect(agent.getSnapshot().hasTag("awaitingHuman")).toBe(true);

    app.send({ type: "APPROVE", toolCallId: "call-refund" });
    await waitFor(harness, (snapshot) => snapshot.matches("idle"));
    expect(lines(effects)).toEqual(["A-17 embedded-harness:call-refund"]);
    await session.close();
    const reopened = await new JsonlSessionRepo({ root }).open("embedded-harness");
    const messages = reopened.buildContext().messages;
    expect(roles(messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(texts(messages).at(-1)).toBe("Refunded.");
    await reopened.close();
  });
});
