import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { roles, texts } from "../support/harness-support.js";
import { refundModel, refundTool } from "../support/refund-tool.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-resume-approval-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const refunds = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);

function waitForEvent(harness: AgentHarness, type: HarnessEvent["type"]) {
  return new Promise<HarnessEvent>((resolve) => {
    const subscription = harness.events$.subscribe((event) => {
      if (event.type === type) {
        subscription.unsubscribe();
        resolve(event);
      }
    });
  });
}

/** A harness on a fresh memory session whose `refund` call of `order` waits for approval. */
async function harnessAwaitingRefund(effects: string, order: string) {
  const repo = new MemorySessionRepo();
  const session = await repo.create({ cwd: "/shop" });
  const first = new AgentHarness({
    session,
    model: refundModel,
    tools: [refundTool(effects)],
    streamFn: scriptedModel([{ toolCalls: [{ id: "r1", name: "refund", arguments: { order } }] }]),
  });
  const asked = waitForEvent(first, "tool_approval_request");
  void first.prompt(`Refund order ${order}`).catch(() => {});
  await asked;
  return { repo, session, first };
}

describe("a harness persisted while a call waits for approval", () => {
  it("restores still waiting, asks again, and runs the call once when approved on the harness", async () => {
    const effects = join(scratch, "in-process.log");
    const { repo, session, first } = await harnessAwaitingRefund(effects, "A-17");
    expect(first.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-17" } },
    ]);
    const saved = JSON.stringify(first.persist());
    await first.abort();
    await session.close();
    // What the first process left: the prompt and the reply with its call, no result.
    const left = await repo.fork(session.id, {
      entryId: (await repo.open(session.id).then(async (s) => {
        const id = s.getBranch().find((e) => e.type === "message" && e.message.role === "assistant")!.id;
        await s.close();
        return id;
      }))!,
      position: "at",
    });

    const model = scriptedModel([{ text: "Refunded." }]);
    const events: HarnessEvent[] = [];
    const { harness, resumed } = AgentHarness.restore(
      { ...JSON.parse(saved), sessionId: left.id },
      { session: left, model: refundModel, tools: [refundTool(effects)], streamFn: model },
    );
    // Listed as soon as restore returns, and asked again after (a listener attached now sees it).
    expect(harness.awaitingApproval.map((call) => call.toolCallId)).toEqual(["r1"]);
    harness.events$.subscribe((event) => events.push(event));
    const request = await waitForEvent(harness, "tool_approval_request");
    expect(request).toMatchObject({ toolCallId: "r1", toolName: "refund" });
    expect(harness.awaitingApproval.map((call) => call.toolCallId)).toEqual(["r1"]);
    expect(refunds(effects)).toEqual([]);
    harness.approveToolCall("r1");
    const reply = await resumed;
    expect(reply).toMatchObject({ role: "assistant", stopReason: "stop" });
    // The waiting call was restored with its persisted agent: its idempotency key is the one it was
    // made with (the first session's), so a tool that dedupes by key sees the same call.
    expect(refunds(effects)).toEqual([`A-17 ${session.id}:r1`]);
    expect(roles(harness.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(texts(harness.messages)[2]).toBe("refunded A-17");
    // The restored agent resumes (its call, started in the first process, asks again) and goes on
    // like a live run; its events reach events$.
    expect(events.map((event) => event.type).slice(0, 3)).toEqual([
      "agent_resume",
      "tool_approval_request",
      "tool_execution_end",
    ]);
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(model.calls).toHaveLength(1);
  });

  it("a denial on the restored harness answers the call with the one denial text", async () => {
    const effects = join(scratch, "denied.log");
    const { session, first } = await harnessAwaitingRefund(effects, "B-2");
    await session.flush();
    const saved = first.persist();
    const { harness, resumed } = AgentHarness.restore(saved, {
      session,
      model: refundModel,
      tools: [refundTool(effects)],
      streamFn: scriptedModel([{ text: "Not refunded." }]),
    });
    // The first harness stands for a process that died: it is never answered.
    await waitForEvent(harness, "tool_approval_request");
    harness.denyToolCall("r1", "over the limit");
    await resumed;
    expect(texts(harness.messages)[2]).toBe("Tool call denied: over the limit");
    expect(refunds(effects)).toEqual([]);
  });

  it("restores the harness 0.2.0 persisted while `refund` waited (a journal entry written before the approval): it asks again", async () => {
    const effects = join(scratch, "fixture.log");
    const fixtures = join(repoRoot, "test/fixtures/persisted/0.2.0");
    const saved = JSON.parse(readFileSync(join(fixtures, "harness-approval.json"), "utf8"));
    const root = join(scratch, "fixture-sessions");
    const folder = join(root, "--work-project--");
    mkdirSync(folder, { recursive: true });
    copyFileSync(
      join(fixtures, "harness-approval.session.jsonl"),
      join(folder, `2026-12-01T20-46-18-246Z_${saved.sessionId}.jsonl`),
    );
    const session = await new JsonlSessionRepo({ root }).open(saved.sessionId);
    const { harness, resumed } = AgentHarness.restore(saved, {
      session,
      model: refundModel,
      tools: [refundTool(effects)],
      streamFn: scriptedModel([{ text: "Refunded." }]),
    });
    const request = (await waitForEvent(harness, "tool_approval_request")) as { toolCallId: string };
    expect(refunds(effects)).toEqual([]);
    harness.approveToolCall(request.toolCallId);
    await resumed;
    expect(refunds(effects)).toHaveLength(1);
    expect(texts(harness.messages).slice(-2)).toEqual(["refunded A-17", "Refunded."]);
    await session.close();
  });

  it("across processes: a child persists at the approval and exits; this process restores and approves at once; the refund ran once", async () => {
    const root = join(scratch, "two-process");
    const effects = join(scratch, "two-process.log");
    const child = await runTs("test/support/harness-approval-child.ts", [root, effects], { cwd: repoRoot });
    expect(child.code, child.stderr).toBe(0);
    const saved = child.stdout.trim().split("\n").at(-1)!;
    expect(refunds(effects)).toEqual([]);
    const session = await new JsonlSessionRepo({ root }).open("refund-session");
    const { harness, resumed } = AgentHarness.restore(saved, {
      session,
      model: refundModel,
      tools: [refundTool(effects)],
      streamFn: scriptedModel([{ text: "Refunded." }]),
    });
    // Waiting as soon as restore returns: approved synchronously, as on a restored Agent.
    expect(harness.awaitingApproval.map((call) => call.toolCallId)).toEqual(["call-refund"]);
    harness.approveToolCall("call-refund");
    await resumed;
    expect(refunds(effects)).toEqual(["A-17 refund-session:call-refund"]);
    await session.close();
    const reopened = await new JsonlSessionRepo({ root }).open("refund-session");
    expect(roles(reopened.buildContext().messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    await reopened.close();
  });
});
