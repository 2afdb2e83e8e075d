import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
import type { AgentTool } from "../../src/types/tool.js";
import {
  createHarness,
  nextEvent,
  replyText,
  requestUserTexts,
  roles,
  sessionMessages,
  testModel,
  texts,
} from "../support/harness-support.js";
import { echoTool } from "../support/loop-harness.js";

const queueLengths = (events: HarnessEvent[], key: "steer" | "followUp") =>
  events.flatMap((event) => (event.type === "queue_update" ? [event[key].length] : []));

describe("AgentHarness prompts", () => {
  it("starts from the session context and resolves prompt with the last assistant message", async () => {
    const { harness, session, model } = await createHarness([{ text: "Hello!" }, { text: "Again" }]);
    expect(harness.phase).toBe("idle");
    const { reply } = await harness.prompt("Hi");
    expect(replyText(reply)).toBe("Hello!");
    expect(roles(sessionMessages(session))).toEqual(["user", "assistant"]);
    expect(model.calls[0]?.options.sessionId).toBe(session.id);
    const reopened = new AgentHarness({ session, model: testModel, streamFn: model });
    expect(texts(reopened.messages)).toEqual(["Hi", "Hello!"]);
    await reopened.prompt("More");
    expect(requestUserTexts(model.calls[1]!.context)).toEqual(["Hi", "More"]);
  });

  it("rejects a second operation while one runs (busy); steering while idle queues, as the Agent's does", async () => {
    const { harness } = await createHarness([{ text: "slow", delayMs: 5 }]);
    harness.steer("x");
    harness.followUp("y");
    expect(harness.persist().queues).toMatchObject({
      steering: [{ role: "user", content: "x" }],
      followUp: [{ role: "user", content: "y" }],
    });
    harness.send({ type: "CLEAR_QUEUES" });
    expect(harness.agent.queued).toEqual({ steering: [], followUp: [] });
    const first = harness.prompt("one");
    await expect(harness.prompt("two")).rejects.toMatchObject({ code: "busy" });
    await expect(harness.compact()).rejects.toMatchObject({ code: "busy" });
    await expect(harness.navigateTree("x")).rejects.toMatchObject({ code: "busy" });
    await first;
    expect(harness.phase).toBe("idle");
  });

  it("delivers steering one at a time: user counts per request [1,2,3], steer lengths [1,2,1,0]", async () => {
    let harness!: AgentHarness;
    const created = await createHarness(
      [
        () => {
          harness.steer("s1");
          harness.steer("s2");
          return { text: "a" };
        },
        { text: "b" },
        { text: "c" },
      ],
      {},
    );
    harness = created.harness;
    await harness.prompt("p");
    expect(created.model.calls.map((call) => requestUserTexts(call.context).length)).toEqual([1, 2, 3]);
    expect(queueLengths(created.events, "steer")).toEqual([1, 2, 1, 0]);
  });

  it("drains follow-ups one at a time after the agent would stop", async () => {
    let harness!: AgentHarness;
    const created = await createHarness([
      () => {
        harness.followUp("f1");
        harness.followUp("f2");
        return { text: "a" };
      },
      { text: "b" },
      { text: "c" },
    ]);
    harness = created.harness;
    await harness.prompt("p");
    expect(created.model.calls.map((call) => requestUserTexts(call.context).length)).toEqual([1, 2, 3]);
    expect(queueLengths(created.events, "followUp")).toEqual([1, 2, 1, 0]);
  });

  it("abort clears steer and follow-up queues, keeps nextTurn messages and aborts the request", async () => {
    const { harness, model, session } = await createHarness([{ hang: true, text: "…" }, { text: "done" }]);
    const running = harness.prompt("first");
    await nextEvent(harness, "message_update");
    harness.steer("s");
    harness.followUp("f");
    harness.nextTurn("next");
    const cleared = await harness.abort();
    expect(texts(cleared.clearedSteer)).toEqual(["s"]);
    expect(texts(cleared.clearedFollowUp)).toEqual(["f"]);
    const aborted = await running;
    expect(aborted.stopReason).toBe("aborted");
    expect(model.calls[0]?.options.signal?.aborted).toBe(true);
    await harness.prompt("second");
    expect(requestUserTexts(model.calls[1]!.context)).toEqual(["first", "next", "second"]);
    expect(texts(sessionMessages(session)).filter((text) => text === "next")).toHaveLength(1);
  });

  it("waitForIdle waits for the run and its async listeners", async () => {
    const { harness } = await createHarness([{ text: "x" }]);
    let listenerDone = false;
    harness.agent.subscribe(async (event) => {
      if (event.type === "agent_end") {
        await Promise.resolve();
        listenerDone = true;
      }
    });
    void harness.prompt("p");
    await harness.waitForIdle();
    expect(listenerDone).toBe(true);
    expect(harness.phase).toBe("idle");
  });

  it("runs skills and prompt templates as prompts", async () => {
    const skill = {
      name: "review",
      description: "Reviews code",
      content: "Review carefully.",
      filePath: "/skills/review/SKILL.md",
      baseDir: "/skills/review",
      disableModelInvocation: false,
      userInvocable: true,
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a prompt template placeholder, not JS
    const template = { name: "fix", description: "Fix", content: "Fix $1 in ${@:2}", filePath: "/p/fix.md" };
    const { harness, model } = await createHarness([{ text: "a" }, { text: "b" }], {
      resources: { skills: [skill], promptTemplates: [template] },
    });
    await harness.skill("review", "Focus on naming.");
    expect(requestUserTexts(model.calls[0]!.context)[0]).toBe(
      '<skill name="review" location="/skills/review/SKILL.md">\nReferences are relative to /skills/review.\n\nReview carefully.\n</skill>\n\nFocus on naming.',
    );
    expect(model.calls[0]!.context.systemPrompt).toContain("<name>review</name>");
    await harness.promptFromTemplate("fix", ["bug", "a.ts", "b.ts"]);
    expect(requestUserTexts(model.calls[1]!.context)[1]).toBe("Fix bug in a.ts b.ts");
    await expect(harness.skill("nope")).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(harness.promptFromTemplate("nope")).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("resolves a system prompt function per turn and passes the tool context to tools", async () => {
    const seen: unknown[] = [];
    const tool: AgentTool = {
      ...echoTool(),
      execute: async (args, ctx) => {
        seen.push(ctx.context);
        return { content: [{ type: "text", text: `echo ${(args as { text: string }).text}` }] };
      },
    };
    let counter = 0;
    const { harness, model } = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done" }, { text: "again" }],
      {
        tools: [tool],
        systemPrompt: async ({ activeTools, thinkingLevel }) =>
          `turn ${++counter}: ${activeTools.map((t) => t.name).join(",")} ${thinkingLevel}`,
        toolContext: () => ({ cwd: `/w${counter}` }),
      },
    );
    await harness.prompt("go");
    expect(model.calls.map((call) => call.context.systemPrompt)).toEqual([
      "turn 1: echo off",
      "turn 2: echo off",
    ]);
    expect(seen).toEqual([{ cwd: "/w0" }]);
    harness.setThinkingLevel("high");
    await harness.prompt("again");
    expect(model.calls[2]!.context.systemPrompt).toBe("turn 3: echo high");
  });

  it("defaults the system prompt and appends the visible skills", async () => {
    const { harness, model } = await createHarness([{ text: "a" }]);
    await harness.prompt("p");
    expect(model.calls[0]!.context.systemPrompt).toBe("You are a helpful assistant.");
  });
});

describe("AgentHarness settings", () => {
  it("persists model, thinking level and active tools in order and emits updates", async () => {
    const other = { ...testModel, id: "other-1", provider: "other" };
    const { harness, session, events } = await createHarness([{ text: "a" }], {
      tools: [echoTool("a"), echoTool("b")],
    });
    harness.setModel(other);
    harness.setThinkingLevel("low");
    harness.setActiveTools(["b"]);
    await harness.prompt("p");
    expect(session.getBranch().map((entry) => entry.type)).toEqual([
      "model_change",
      "thinking_level_change",
      "active_tools_change",
      "message",
      "message",
    ]);
    expect(session.buildContext()).toMatchObject({
      model: { provider: "other", modelId: "other-1" },
      thinkingLevel: "low",
      activeToolNames: ["b"],
    });
    expect(
      events
        .filter((e) => ["model_update", "thinking_level_update", "tools_update"].includes(e.type))
        .map((e) => e.type),
    ).toEqual(["model_update", "thinking_level_update", "tools_update"]);
    const reopened = new AgentHarness({
      session,
      model: other,
      streamFn: scriptedModel([]),
      tools: [echoTool("a"), echoTool("b")],
    });
    expect(reopened.activeToolNames).toEqual(["b"]);
    expect(reopened.thinkingLevel).toBe("low");
  });

  it("holds settings changed during a run until the turn ends, then uses them for the next request", async () => {
    const other = { ...testModel, id: "other-1" };
    let harness!: AgentHarness;
    const gate = echoTool("echo", async () => {
      harness.setModel(other);
      harness.setActiveTools([]);
    });
    const created = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done" }],
      { tools: [gate] },
    );
    harness = created.harness;
    await harness.prompt("go");
    expect(created.model.calls[1]!.model.id).toBe("other-1");
    expect(created.model.calls[1]!.context.tools).toEqual([]);
    const types = created.session.getBranch().map((e) => (e.type === "message" ? e.message.role : e.type));
    expect(types).toEqual([
      "user",
      "assistant",
      "custom", // the tool call's journal entry
      "toolResult",
      "model_change",
      "active_tools_change",
      "assistant",
    ]);
  });

  it("validates tools: duplicates and unknown active names are invalid_argument", async () => {
    const { harness, session } = await createHarness([], { tools: [echoTool("a")] });
    expect(() => harness.setActiveTools(["zzz"])).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    expect(() => harness.setActiveTools(["a", "a"])).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    expect(() => harness.setTools([echoTool("x"), echoTool("x")])).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    expect(() => harness.setThinkingLevel("huge" as never)).toThrow(
      expect.objectContaining({ code: "invalid_argument" }),
    );
    const build = (options: object) => () =>
      new AgentHarness({ session, model: testModel, streamFn: scriptedModel([]), ...options });
    expect(build({ tools: [echoTool("a"), echoTool("a")] })).toThrow(/Duplicate tool/);
    expect(build({ tools: [echoTool("a")], activeToolNames: ["b"] })).toThrow(/Unknown tool/);
    expect(build({ tools: [echoTool("a")], activeToolNames: ["a", "a"] })).toThrow(/Duplicate active/);
    harness.setTools([echoTool("x"), echoTool("y")], ["y"]);
    expect(harness.tools.map((t) => t.name)).toEqual(["x", "y"]);
    expect(harness.activeToolNames).toEqual(["y"]);
  });

  it("setResources emits resources_update with the previous value and returns copies", async () => {
    const { harness, events } = await createHarness([]);
    const template = { name: "t", description: "", content: "c", filePath: "/t.md" };
    harness.setResources({ promptTemplates: [template] });
    const update = events.find((e) => e.type === "resources_update");
    expect(update).toMatchObject({
      previousResources: { promptTemplates: [] },
      resources: { promptTemplates: [template] },
    });
    harness.resources.promptTemplates.pop();
    expect(harness.resources.promptTemplates).toHaveLength(1);
  });

  it("rejects changes once the session is closed (session)", async () => {
    const { harness, session } = await createHarness([]);
    await session.close();
    expect(() => harness.setThinkingLevel("low")).toThrow(expect.objectContaining({ code: "session" }));
  });
});

describe("AgentHarness persistence (JSONL round trip)", () => {
  const root = mkdtempSync(join(tmpdir(), "agentchart-harness-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("reopening the session from disk yields the same messages and settings", async () => {
    const repo = new JsonlSessionRepo({ root });
    const session = await repo.create({ cwd: root });
    const { harness } = await createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done" }, { text: "bye" }],
      { session, tools: [echoTool()] },
    );
    await harness.prompt("one");
    harness.setThinkingLevel("medium");
    harness.nextTurn("note");
    await harness.prompt("two");
    const live = structuredClone(harness.messages);
    await session.close();
    const reopened = await new JsonlSessionRepo({ root }).open(session.id);
    const context = reopened.buildContext();
    expect(context.messages).toEqual(live);
    expect(roles(context.messages)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "user",
      "assistant",
    ]);
    expect(context.thinkingLevel).toBe("medium");
    await reopened.close();
  });
});
