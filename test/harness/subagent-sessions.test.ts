import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { OUTPUT_ENTRY } from "../../src/harness/session-recorder.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import type { Session } from "../../src/storage/session.js";
import type { SessionRepo } from "../../src/storage/session-repo.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import type { ToolResultMessage } from "../../src/types/messages.js";
import { harnessSupportTree } from "../support/harness-subagent-tree.js";
import { roles, texts } from "../support/harness-support.js";
import { deferred } from "../support/loop-harness.js";
import { refundModel } from "../support/refund-tool.js";

const scratch = mkdtempSync(join(tmpdir(), "agentchart-subagent-sessions-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const refunds = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);

function nextEvent(harness: AgentHarness, matches: (event: HarnessEvent) => boolean) {
  return new Promise<HarnessEvent>((resolve) => {
    const subscription = harness.events$.subscribe((event) => {
      if (!matches(event)) return;
      subscription.unsubscribe();
      resolve(event);
    });
  });
}

/** The session whose header links `parent` (path or id) and the call `toolCallId`. */
async function childSession(repo: SessionRepo, parent: Session, toolCallId: string): Promise<Session> {
  const infos = await repo.list();
  const links = [parent.id, parent.path].filter(Boolean);
  const matching = infos.filter(
    (info) => links.includes(info.parentSession) && info.parentToolCallId === toolCallId,
  );
  expect(matching).toHaveLength(1);
  return repo.open(matching[0]!.id);
}

const toolResultsOf = (session: Session) =>
  session
    .buildContext()
    .messages.filter((message): message is ToolResultMessage => message.role === "toolResult");

describe("sub-agents in a harness", () => {
  it("records only the harness's own run in its session, each child in its own linked session", async () => {
    const effects = join(scratch, "live.log");
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const tree = harnessSupportTree(effects);
    const harness = new AgentHarness({
      session,
      sessionRepo: repo,
      model: refundModel,
      tools: tree.tools,
      streamFn: tree.harnessModel,
    });
    const phaseAtChildEnds: string[] = [];
    harness.events$.subscribe((event) => {
      if (event.type === "agent_end" && "agentPath" in event && event.agentPath)
        phaseAtChildEnds.push(`${event.agentPath.join("/")}:${harness.phase}`);
    });
    const asked = nextEvent(harness, (event) => event.type === "tool_approval_request");
    const done = harness.prompt("help");
    expect(await asked).toMatchObject({ toolCallId: "r1", agentPath: ["s1", "b1"] });
    expect(harness.awaitingApproval).toEqual([
      { toolCallId: "r1", toolName: "refund", args: { order: "A-1" }, agentPath: ["s1", "b1"] },
    ]);
    harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    const { reply } = await done;

    expect(texts([reply])).toEqual(["root: all done"]);
    expect(refunds(effects)).toEqual([`A-1 ${session.id}/s1/b1:r1`]);
    // A child's end settles nothing of the parent: the harness is still in its turn each time.
    expect(phaseAtChildEnds).toEqual(["s1/b1:turn", "s1:turn"]);
    // The root session holds the root's run only: none of the children's messages or output entries.
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    // Its only custom entry is the journal entry of the agent tool call (written when the child started).
    const customs = session.getEntries().flatMap((entry) => (entry.type === "custom" ? [entry] : []));
    expect(
      customs.map((entry) => [entry.customType, (entry.data as { toolCallId: string }).toolCallId]),
    ).toEqual([["agentchart.tool_call", "s1"]]);
    expect(roles(harness.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    // A child without a StreamFn of its own asks the harness's model with its own system prompt.
    expect(tree.harnessModel.calls.map((call) => call.context.systemPrompt)).toEqual([
      "You are a helpful assistant.",
      "You do support.",
      "You do support.",
      "You are a helpful assistant.",
    ]);

    const support = await childSession(repo, session, "s1");
    const billing = await childSession(repo, support, "b1");
    expect(texts(support.buildContext().messages)).toEqual([
      "customer wants a refund",
      "[toolCall]",
      "billing: refunded",
      "support: done",
    ]);
    expect(texts(billing.buildContext().messages)).toEqual([
      "refund A-1",
      "[toolCall]",
      "refunded A-1",
      "billing: refunded",
    ]);
    // Each agent tool result links the session of the child it ran, in memory and in the session.
    expect(toolResultsOf(session)[0]!.details).toMatchObject({ session: support.id });
    expect((harness.messages[2] as ToolResultMessage).details).toMatchObject({ session: support.id });
    expect(toolResultsOf(support)[0]!.details).toMatchObject({ session: billing.id });
    expect(toolResultsOf(billing)[0]!.details).toBeUndefined();
    await Promise.all([support.close(), billing.close(), session.close()]);
  });

  it("records no child sessions without a repo, and the children still run", async () => {
    const effects = join(scratch, "no-repo.log");
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const tree = harnessSupportTree(effects);
    const harness = new AgentHarness({
      session,
      model: refundModel,
      tools: tree.tools,
      streamFn: tree.harnessModel,
    });
    const asked = nextEvent(harness, (event) => event.type === "tool_approval_request");
    const done = harness.prompt("help");
    await asked;
    harness.approveToolCall("r1", { agentPath: ["s1", "b1"] });
    await done;
    expect(refunds(effects)).toHaveLength(1);
    expect((await repo.list()).map((info) => info.id)).toEqual([session.id]);
    expect(roles(session.buildContext().messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    await session.close();
  });

  it("an abort during a child's stream ends both levels; each session holds an answered transcript", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const slow = scriptedModel([{ text: "never finished", delayMs: Number.POSITIVE_INFINITY }]);
    const childAsked = deferred();
    const researcher = defineAgentTool({
      name: "research",
      description: "Researches",
      agent: {
        systemPrompt: "You research.",
        streamFn: (model, context, options) => {
          childAsked.resolve();
          return slow(model, context, options);
        },
      },
    });
    const harness = new AgentHarness({
      session,
      sessionRepo: repo,
      model: refundModel,
      tools: [researcher],
      streamFn: scriptedModel([{ toolCalls: [{ id: "q1", name: "research", arguments: { task: "look" } }] }]),
    });
    const done = harness.prompt("go");
    await childAsked.promise;
    await harness.abort();
    await done;
    expect(harness.phase).toBe("idle");
    const [child] = (await repo.list()).filter((info) => info.parentToolCallId === "q1");
    const childSession = await repo.open(child!.id);
    for (const recorded of [session, childSession]) {
      const messages = recorded.buildContext().messages;
      const calls = messages.flatMap((m) =>
        m.role === "assistant" ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [],
      );
      const answered = messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
      expect(answered).toEqual(calls);
    }
    expect(texts(session.buildContext().messages).slice(0, 2)).toEqual(["go", "[toolCall]"]);
    // An aborted call is answered without the result hooks, so its result does not link the child;
    // the child's header links the call (found above by parentToolCallId).
    expect(toolResultsOf(session)[0]).toMatchObject({ toolCallId: "q1", isError: true });
    // The child's session was closed when the root's run ended (the stopped child reported no end).
    const childMessages = childSession.buildContext().messages;
    expect(texts(childMessages)[0]).toBe("look");
    for (const message of childMessages.slice(1)) expect(message).toMatchObject({ stopReason: "aborted" });
    await Promise.all([childSession.close(), session.close()]);
  });

  it("a child's typed output is an entry of its own session, and a tool_result hook's details keep the link", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const checker = defineAgentTool({
      name: "check",
      description: "Checks an order",
      agent: {
        systemPrompt: "You check.",
        streamFn: scriptedModel([{ text: '{"ok":true}' }]),
        output: z.object({ ok: z.boolean() }),
      },
    });
    const harness = new AgentHarness({
      session,
      sessionRepo: repo,
      model: refundModel,
      tools: [checker],
      streamFn: scriptedModel([
        { toolCalls: [{ id: "c1", name: "check", arguments: { task: "A-1" } }] },
        { text: "checked" },
      ]),
    });
    harness.on("tool_result", ({ details }) => ({ details: { ...(details as object), hooked: true } }));
    await harness.prompt("check A-1");
    const [child] = (await repo.list()).filter((info) => info.parentToolCallId === "c1");
    const childSession = await repo.open(child!.id);
    const outputs = (recorded: Session) =>
      recorded
        .getEntries()
        .flatMap((entry) =>
          entry.type === "custom" && entry.customType === OUTPUT_ENTRY ? [entry.data] : [],
        );
    expect(outputs(childSession)).toEqual([{ output: { ok: true } }]);
    expect(outputs(session)).toEqual([]);
    expect(toolResultsOf(session)[0]!.details).toMatchObject({ hooked: true, session: child!.id });
    expect(texts([toolResultsOf(session)[0]!])).toEqual(['{"ok":true}']);
    await Promise.all([childSession.close(), session.close()]);
  });

  it("three parallel children whose grandchildren share a call id: each result links its own grandchild", async () => {
    const repo = new MemorySessionRepo();
    const session = await repo.create({ cwd: "/shop" });
    const branch = (name: string) => {
      const leaf = defineAgentTool({
        name: "lookup",
        description: "Looks up",
        agent: { systemPrompt: "You look up.", streamFn: scriptedModel([{ text: `found ${name}` }]) },
      });
      return defineAgentTool({
        name,
        description: `Handles ${name}`,
        agent: {
          systemPrompt: `You are ${name}.`,
          tools: [leaf],
          streamFn: scriptedModel([
            { toolCalls: [{ id: "g1", name: "lookup", arguments: { task: `look up ${name}` } }] },
            { text: `${name} done` },
          ]),
        },
      });
    };
    const harness = new AgentHarness({
      session,
      sessionRepo: repo,
      model: refundModel,
      tools: ["a", "b", "c"].map(branch),
      streamFn: scriptedModel([
        {
          toolCalls: ["a", "b", "c"].map((name) => ({ id: `${name}1`, name, arguments: { task: name } })),
        },
        { text: "all done" },
      ]),
    });
    await harness.prompt("go");
    const infos = await repo.list();
    for (const name of ["a", "b", "c"]) {
      const child = infos.find((info) => info.parentToolCallId === `${name}1`)!;
      const childSession = await repo.open(child.id);
      const [lookupResult] = toolResultsOf(childSession);
      expect(texts([lookupResult!])).toEqual([`found ${name}`]);
      const grandchild = await repo.open((lookupResult!.details as { session: string }).session);
      expect(grandchild.header).toMatchObject({ parentSession: child.id, parentToolCallId: "g1" });
      expect(texts(grandchild.buildContext().messages)).toEqual([`look up ${name}`, `found ${name}`]);
      await Promise.all([grandchild.close(), childSession.close()]);
    }
    await session.close();
  });
});
