import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import type { Session } from "../../src/storage/session.js";
import type { SessionRepo } from "../../src/storage/session-repo.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import { repoRoot, runTs } from "../support/cli-process.js";
import { harnessSupportTree } from "../support/harness-subagent-tree.js";
import { roles, texts } from "../support/harness-support.js";
import { deferred } from "../support/loop-harness.js";
import { refundModel } from "../support/refund-tool.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-subagent-restore-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const refunds = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);
const waiting = [{ toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1", "b1"] }];

function nextEvent(harness: AgentHarness, type: HarnessEvent["type"]) {
  return new Promise<HarnessEvent>((resolve) => {
    const subscription = harness.events$.subscribe((event) => {
      if (event.type !== type) return;
      subscription.unsubscribe();
      resolve(event);
    });
  });
}

/** The sessions of the children of `parent` (by their header link), by the call that ran each. */
async function childrenOf(repo: SessionRepo, parent: { id: string; path?: string | undefined }) {
  const infos = await repo.list();
  return infos
    .filter(
      (info) => info.parentSession === (parent.path ?? parent.id) && info.parentToolCallId !== undefined,
    )
    .map((info) => ({ id: info.id, path: info.path, call: info.parentToolCallId }));
}

/** A harness over a fresh JSONL repo in `scratch/<name>`, with the support tree `makeTree` builds. */
async function freshHarness(
  name: string,
  makeTree: (effects: string) => ReturnType<typeof harnessSupportTree>,
) {
  const root = join(scratch, name);
  const effects = join(scratch, `${name}.log`);
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.create({ cwd: "/shop", id: "root-session" });
  const tree = makeTree(effects);
  const harness = new AgentHarness({
    session,
    sessionRepo: repo,
    model: refundModel,
    tools: tree.tools,
    streamFn: tree.harnessModel,
  });
  return { root, effects, repo, session, tree, first: harness };
}

/** Restores the persisted harness over the reopened root session, approves the grandchild's call, and checks every session. */
async function restoreAndApprove(
  root: string,
  effects: string,
  saved: string,
  approve: "by command" | "by restore's approvals" = "by command",
) {
  const repo = new JsonlSessionRepo({ root });
  const session = await repo.open("root-session");
  const tree = harnessSupportTree(effects, true);
  const { harness, resumed } = AgentHarness.restore(
    saved,
    { session, sessionRepo: repo, model: refundModel, tools: tree.tools, streamFn: tree.harnessModel },
    approve === "by command" ? {} : { approvals: { "s1/b1/r1": { approved: true } } },
  );
  const reasked = nextEvent(harness, "tool_approval_request");
  expect(harness.phase).toBe("turn");
  expect(harness.awaitingApproval).toEqual(waiting);
  expect(await reasked).toMatchObject({ toolCallId: "r1", agentPath: ["s1", "b1"] });
  if (approve === "by command") {
    expect(refunds(effects)).toEqual([]);
    harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
  }
  const reply = await resumed;
  expect(texts([reply as never])).toEqual(["root: all done"]);
  expect(refunds(effects)).toEqual(["A-1 root-session/s1/b1:r1"]);
  expect(harness.phase).toBe("idle");
  // Neither restored child asked its model for the reply already in its transcript.
  expect(tree.harnessModel.remaining()).toBe(0);
  expect(tree.billingModel.remaining()).toBe(0);
  await session.close();
  await checkSessions(repo);
}

/** Every session of the tree is complete: the root's run in the root's, each child's in its own, linked. */
async function checkSessions(repo: SessionRepo) {
  const readable = async (id: string) => {
    const opened: Session = await repo.open(id);
    const messages = opened.buildContext().messages;
    await opened.close();
    return messages;
  };
  const rootMessages = await readable("root-session");
  expect(roles(rootMessages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  const rootInfo = (await repo.list()).find((info) => info.id === "root-session")!;
  const [support, ...otherChildren] = await childrenOf(repo, rootInfo);
  expect(otherChildren).toEqual([]);
  expect(support!.call).toBe("s1");
  expect((rootMessages[2] as ToolResultMessage).details).toMatchObject({ session: support!.id });
  const supportMessages = await readable(support!.id);
  expect(texts(supportMessages)).toEqual([
    "customer wants a refund",
    "[toolCall]",
    "billing: refunded",
    "support: done",
  ]);
  const [billing, ...others] = await childrenOf(repo, support!);
  expect(others).toEqual([]);
  expect(billing!.call).toBe("b1");
  expect((supportMessages[2] as ToolResultMessage).details).toMatchObject({ session: billing!.id });
  expect(texts(await readable(billing!.id))).toEqual([
    "refund A-1",
    "[toolCall]",
    "refunded A-1",
    "billing: refunded",
  ]);
  expect(await childrenOf(repo, billing!)).toEqual([]);
}

describe("a harness persisted while a grandchild's call waits for approval", () => {
  it("restores in a fresh harness: the call waits with its path, approving runs it once, every session completes", async () => {
    const { root, effects, session, first } = await freshHarness("in-process", (log) =>
      harnessSupportTree(log),
    );
    const asked = nextEvent(first, "tool_approval_request");
    void first.prompt("help");
    await asked;
    expect(first.awaitingApproval).toEqual(waiting);
    const saved = JSON.stringify(first.persist());
    // The first harness stands for a process that stopped here: it is never answered.
    await first.close();
    await session.close();
    await restoreAndApprove(root, effects, saved);
  });

  it("restore's approvals, keyed by callKey, answer the grandchild's call when it asks again", async () => {
    const { root, effects, session, first } = await freshHarness("by-key", (log) => harnessSupportTree(log));
    const asked = nextEvent(first, "tool_approval_request");
    void first.prompt("help");
    await asked;
    const saved = JSON.stringify(first.persist());
    await first.close();
    await session.close();
    await restoreAndApprove(root, effects, saved, "by restore's approvals");
  });

  it("across processes: a child persists at the grandchild's approval and exits; this process restores, approves; the refund ran once", async () => {
    const root = join(scratch, "two-process");
    const effects = join(scratch, "two-process.log");
    const child = await runTs("test/support/harness-subagent-child.ts", [root, effects], { cwd: repoRoot });
    expect(child.code, child.stderr).toBe(0);
    const saved = child.stdout.trim().split("\n").at(-1)!;
    expect(JSON.parse(saved).subAgents).toHaveLength(2);
    expect(refunds(effects)).toEqual([]);
    await restoreAndApprove(root, effects, saved);
  });

  it("persisted while the grandchild streams: the restored grandchild asks its model again, the refund runs once", async () => {
    const billingAsked = deferred();
    const { effects, repo, session, tree, first } = await freshHarness("streaming", (log) =>
      harnessSupportTree(log, false, undefined, [
        () => {
          billingAsked.resolve();
          return { text: "never finished", delayMs: Number.POSITIVE_INFINITY };
        },
      ]),
    );
    void first.prompt("help");
    await billingAsked.promise;
    const saved = JSON.stringify(first.persist());
    expect(JSON.parse(saved).subAgents.map((sub: { agentPath: string[] }) => sub.agentPath)).toEqual([
      ["s1"],
      ["s1", "b1"],
    ]);
    await first.close();
    await session.close();

    const reopened = await repo.open("root-session");
    // Root and support already replied; billing's reply never finished, so it is asked for in full.
    const again = harnessSupportTree(effects, true, undefined, tree.billingScript);
    const { harness, resumed } = AgentHarness.restore(saved, {
      session: reopened,
      sessionRepo: repo,
      model: refundModel,
      tools: again.tools,
      streamFn: again.harnessModel,
    });
    const asked = await nextEvent(harness, "tool_approval_request");
    expect(asked).toMatchObject({ toolCallId: "r1", agentPath: ["s1", "b1"] });
    harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    await resumed;
    expect(refunds(effects)).toEqual(["A-1 root-session/s1/b1:r1"]);
    expect(again.billingModel.calls).toHaveLength(2);
    await reopened.close();
    await checkSessions(repo);
  });

  /** A harness on a JSONL session that stops (as a killed process would) while the grandchild's call waits. */
  async function diedAtTheApproval(name: string, replay: "safe" | undefined) {
    const { effects, repo, session, first } = await freshHarness(name, (log) =>
      harnessSupportTree(log, false, replay),
    );
    const asked = nextEvent(first, "tool_approval_request");
    void first.prompt("help");
    await asked;
    await first.close();
    await session.close();
    const rootInfo = async () => (await repo.list()).find((info) => info.id === "root-session")!;
    const interrupted = await childrenOf(repo, await rootInfo());
    expect(interrupted.map((child) => child.call)).toEqual(["s1"]);
    return { repo, effects, interrupted: interrupted[0]!, rootInfo };
  }

  it("without a persisted harness (the process died), resume() answers the started agent tool call as interrupted by default", async () => {
    const { repo, effects } = await diedAtTheApproval("crash-never", undefined);
    const session = await repo.open("root-session");
    const model = scriptedModel([{ text: "The support agent was interrupted." }]);
    const harness = new AgentHarness({
      session,
      sessionRepo: repo,
      model: refundModel,
      tools: harnessSupportTree(effects).tools,
      streamFn: model,
    });
    await harness.resume();
    expect(refunds(effects)).toEqual([]);
    const result = harness.messages[2] as ToolResultMessage;
    expect(result).toMatchObject({ toolCallId: "s1", isError: true });
    expect(texts([result])[0]).toMatch(/^Tool call interrupted, not re-run/);
    expect(model.calls).toHaveLength(1);
    await session.close();
  });

  it('without a persisted harness, resume() runs a `replay: "safe"` agent tool\'s child again from its task, in a new session', async () => {
    const { repo, effects, interrupted, rootInfo } = await diedAtTheApproval("crash-safe", "safe");
    const reopened = await repo.open("root-session");
    const again = harnessSupportTree(effects, false, "safe");
    // The session alone knows the root's reply with call s1: the child is asked from its task again.
    const harness = new AgentHarness({
      session: reopened,
      sessionRepo: repo,
      model: refundModel,
      tools: again.tools,
      streamFn: again.harnessModel,
    });
    const reasked = nextEvent(harness, "tool_approval_request");
    const resumed = harness.resume();
    expect(await reasked).toMatchObject({ toolCallId: "r1", agentPath: ["s1", "b1"] });
    harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    await resumed;
    expect(refunds(effects)).toEqual(["A-1 root-session/s1/b1:r1"]);
    await reopened.close();
    const supports = await childrenOf(repo, await rootInfo());
    expect(supports.map((child) => child.call)).toEqual(["s1", "s1"]);
    const linked = await repo.open("root-session");
    const result = linked.buildContext().messages[2] as ToolResultMessage;
    await linked.close();
    // The tool result links the child session that finished; the interrupted one stays as it was.
    expect(result.details).toMatchObject({
      session: supports.find((child) => child.id !== interrupted.id)!.id,
    });
  });
});
