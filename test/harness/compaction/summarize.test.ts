import { Observable, of } from "rxjs";
import { describe, expect, it } from "vitest";
import {
  type CompactionError,
  generateSummary,
  isCompactionError,
  serializeConversation,
} from "../../../src/harness/compaction/index.js";
import type { AgentMessage, AssistantMessage, AssistantMessageEvent, StreamFn } from "../../../src/index.js";
import { emptyUsage } from "../../../src/index.js";
import { scriptedModel } from "../../../src/testing.js";
import {
  assistant,
  requestText,
  summariser,
  summaryModel,
  toolResult,
  user,
} from "../../support/compaction.js";

const model = summaryModel;

function reply(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "x",
    provider: "x",
    model: "x",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 0,
  };
}

async function rejection(promise: Promise<unknown>): Promise<CompactionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isCompactionError(error)) throw new Error(`expected a CompactionError, got ${String(error)}`);
  return error;
}

describe("serializeConversation", () => {
  it("writes a readable transcript of every role", () => {
    const call = assistant("I will look.", {
      toolCalls: [{ id: "c1", name: "read", arguments: { path: "src/a.ts", limit: 10 } }],
    });
    call.content.unshift({ type: "thinking", thinking: "Need the file." });
    const messages: AgentMessage[] = [
      user("Fix the bug"),
      call,
      toolResult("c1", "file text"),
      { ...toolResult("c2", "boom"), isError: true },
      { role: "custom", customType: "note", content: "app note", display: true, timestamp: 0 },
      { role: "branchSummary", summary: "tried X", fromId: "root", timestamp: 0 },
      {
        role: "bashExecution",
        command: "ls",
        output: "a.ts",
        exitCode: 2,
        timestamp: 0,
      } as unknown as AgentMessage,
      assistant("", { stopReason: "error" }),
    ];
    expect(serializeConversation(messages)).toBe(
      [
        "[User]: Fix the bug",
        "[Assistant thinking]: Need the file.",
        "[Assistant]: I will look.",
        '[Assistant tool calls]: read(path="src/a.ts", limit=10)',
        "[Tool result]: file text",
        "[Tool error]: boom",
        "[Custom message (note)]: app note",
        "[Branch summary]: tried X",
        "[User ran command]: $ ls (exit 2)\na.ts",
        "[Assistant error]: no details",
      ].join("\n\n"),
    );
  });

  it("truncates long tool results", () => {
    const text = serializeConversation([toolResult("c1", "x".repeat(5000))]);
    expect(text).toBe(`[Tool result]: ${"x".repeat(2000)}\n[... 3000 more characters truncated]`);
  });
});

describe("generateSummary", () => {
  it("sends the transcript with the structured prompt and returns the reply's text", async () => {
    const streamFn = scriptedModel([summariser()]);
    const result = await generateSummary([user("MARK-a"), assistant("MARK-b")], {
      model,
      streamFn,
      maxTokens: 1000,
    });
    expect(result.summary).toBe("## Goal\nsummary of MARK-a MARK-b");
    expect(result.usage).toMatchObject({ input: 100, output: 20 });
    const { context, options } = streamFn.calls[0]!;
    expect(context.systemPrompt).toContain("summarization assistant");
    expect(context.tools).toEqual([]);
    const text = requestText(context);
    for (const section of [
      "## Goal",
      "## Constraints & Preferences",
      "## Progress",
      "### Done",
      "### In Progress",
      "### Blocked",
      "## Key Decisions",
      "## Next Steps",
      "## Critical Context",
    ]) {
      expect(text).toContain(section);
    }
    expect(text).not.toContain("<previous-summary>");
    expect(options.maxTokens).toBe(1000);
  });

  it("updates a previous summary and appends custom instructions as an additional focus", async () => {
    const streamFn = scriptedModel([summariser()]);
    const result = await generateSummary([user("MARK-new")], {
      model,
      streamFn,
      maxTokens: 1000,
      previousSummary: "old work on MARK-old",
      customInstructions: "the database schema",
    });
    expect(result.summary).toBe(
      "## Goal\nsummary of MARK-new\nupdated from MARK-old\nfocus: the database schema",
    );
    const text = requestText(streamFn.calls[0]!.context);
    expect(text).toContain("<previous-summary>\nold work on MARK-old\n</previous-summary>");
    expect(text).toContain("Update that summary");
    expect(text.endsWith("Additional focus: the database schema")).toBe(true);
  });

  it("passes reasoning only to reasoning models with a level other than off", async () => {
    const cases = [
      { reasoningModel: true, level: "high" as const, expected: "high" },
      { reasoningModel: true, level: "off" as const, expected: undefined },
      { reasoningModel: false, level: "high" as const, expected: undefined },
      { reasoningModel: true, level: undefined, expected: undefined },
    ];
    for (const { reasoningModel, level, expected } of cases) {
      const streamFn = scriptedModel([{ text: "S" }]);
      await generateSummary([user("q")], {
        model: { ...model, reasoning: reasoningModel },
        streamFn,
        maxTokens: 100,
        ...(level !== undefined && { reasoning: level }),
        streamOptions: { apiKey: "k", reasoning: "low" },
      });
      expect(streamFn.calls[0]!.options.reasoning).toBe(expected);
      expect(streamFn.calls[0]!.options.apiKey).toBe("k");
    }
  });

  it("clamps maxTokens to the model's output cap", async () => {
    const streamFn = scriptedModel([{ text: "S" }]);
    await generateSummary([user("q")], {
      model: { ...model, maxTokens: 500 },
      streamFn,
      maxTokens: 13_107.2,
    });
    expect(streamFn.calls[0]!.options.maxTokens).toBe(500);
  });

  it("accepts every StreamFn shape", async () => {
    const done: AssistantMessageEvent = { type: "done", reason: "stop", message: reply("from events") };
    async function* iterate() {
      yield done;
    }
    const shapes: StreamFn[] = [() => of(done), () => iterate(), async () => of(done), async () => iterate()];
    for (const streamFn of shapes) {
      await expect(generateSummary([user("q")], { model, streamFn, maxTokens: 10 })).resolves.toMatchObject({
        summary: "from events",
      });
    }
  });

  it("rejects with summarization_failed when the model fails in any way", async () => {
    const failures: [StreamFn, string][] = [
      [scriptedModel([{ error: "rate limited" }]), "Summarization failed: rate limited"],
      [scriptedModel([{ throws: "no network" }]), "Summarization failed: no network"],
      [
        () => new Observable<AssistantMessageEvent>((s) => s.error(new Error("socket"))),
        "Summarization failed: socket",
      ],
      [() => of<AssistantMessageEvent>(), "Summarization failed: the stream ended without a reply."],
      [scriptedModel([{ text: "  " }]), "Summarization failed: the model returned no text."],
      [() => Promise.reject(new Error("bad key")), "Summarization failed: bad key"],
    ];
    for (const [streamFn, message] of failures) {
      const error = await rejection(generateSummary([user("q")], { model, streamFn, maxTokens: 10 }));
      expect(error.code).toBe("summarization_failed");
      expect(error.message).toBe(message);
    }
  });

  it("rejects with aborted when the signal aborts, even if the stream ignores it", async () => {
    const before = new AbortController();
    before.abort();
    const unused = scriptedModel([{ text: "S" }]);
    expect(
      (
        await rejection(
          generateSummary([user("q")], { model, streamFn: unused, signal: before.signal, maxTokens: 10 }),
        )
      ).code,
    ).toBe("aborted");
    expect(unused.calls).toHaveLength(0);

    const during = new AbortController();
    const deaf: StreamFn = () => new Observable<AssistantMessageEvent>(() => {}); // never ends
    const pending = generateSummary([user("q")], {
      model,
      streamFn: deaf,
      signal: during.signal,
      maxTokens: 10,
    });
    during.abort();
    expect((await rejection(pending)).code).toBe("aborted");

    const polite = new AbortController();
    const hanging = scriptedModel([{ text: "partial", hang: true }]);
    const waiting = generateSummary([user("q")], {
      model,
      streamFn: hanging,
      signal: polite.signal,
      maxTokens: 10,
    });
    setTimeout(() => polite.abort(), 5);
    expect((await rejection(waiting)).code).toBe("aborted");

    const abortedByProvider: StreamFn = () =>
      of<AssistantMessageEvent>({
        type: "error",
        reason: "aborted",
        error: { ...reply(""), stopReason: "aborted" },
      });
    const error = await rejection(
      generateSummary([user("q")], { model, streamFn: abortedByProvider, maxTokens: 10 }),
    );
    expect(error.code).toBe("aborted");
  });
});
