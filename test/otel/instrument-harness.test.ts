import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { instrument } from "../../src/otel/instrument.js";
import {
  createHarness,
  phaseReached,
  standInCompaction,
  summariserTurn,
  testModel,
} from "../support/harness-support.js";
import { installAsyncContext, memoryTracing, spanTree, treeLines } from "../support/otel-support.js";

installAsyncContext();

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe("instrument(harness)", () => {
  it("puts a retried prompt in one invoke_agent span: failed chat, retry, chat", async () => {
    const tracing = memoryTracing();
    const { harness, session } = await createHarness([{ error: "503 unavailable" }, { text: "ok" }], {
      retry: { maxRetries: 2, baseDelayMs: 7, maxDelayMs: 7, sleep: () => Promise.resolve() },
    });
    const handle = instrument(harness, { tracer: tracing.tracer });
    const request = tracing.tracer.startSpan("request");
    const reply = await context.with(trace.setSpan(context.active(), request), () => harness.prompt("p"));
    request.end();
    await harness.waitForIdle();
    expect(tracing.openSpans()).toEqual([]);
    handle.dispose();

    expect(reply.stopReason).toBe("stop");
    const spans = tracing.spans();
    expect(treeLines(spanTree(spans))).toEqual([
      "request",
      "  invoke_agent agentchart",
      "    chat scripted-1",
      "    retry",
      "    chat scripted-1",
    ]);
    const [run] = named(spans, "invoke_agent agentchart");
    expect(run!.attributes["gen_ai.conversation.id"]).toBe(session.id);
    expect(run!.status.code).toBe(SpanStatusCode.UNSET);
    const [failed, succeeded] = named(spans, "chat scripted-1");
    expect(failed!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "503 unavailable" });
    expect(succeeded!.status.code).toBe(SpanStatusCode.UNSET);
    const [retry] = named(spans, "retry");
    expect(retry!.attributes).toMatchObject({
      "agentchart.harness.phase": "retry",
      "agentchart.retry.attempt": 1,
      "agentchart.retry.max_retries": 2,
      "agentchart.retry.delay_ms": 7,
    });
  });

  it("traces an automatic compaction under the prompt and a manual one as its own span", async () => {
    const tracing = memoryTracing();
    const { harness } = await createHarness(
      [{ text: "x".repeat(400) }, summariserTurn("AUTO"), summariserTurn("MANUAL")],
      {
        compactionPort: standInCompaction(),
        model: { ...testModel, contextWindow: 200 },
        compaction: { reserveTokens: 100 },
      },
    );
    const handle = instrument(harness, { tracer: tracing.tracer });
    await harness.prompt("q");
    await harness.waitForIdle();
    await harness.compact().catch(() => undefined);
    handle.dispose();

    const spans = tracing.spans();
    const lines = treeLines(spanTree(spans));
    expect(lines.slice(0, 3)).toEqual(["invoke_agent agentchart", "  chat scripted-1", "  compaction"]);
    const [automatic, manual] = named(spans, "compaction");
    expect(automatic!.attributes).toMatchObject({
      "agentchart.harness.phase": "compaction",
      "agentchart.compaction.reason": "threshold",
    });
    // The manual compaction ran outside any prompt: a root span.
    expect(lines.slice(3)).toEqual(["compaction"]);
    expect(manual!.parentSpanContext).toBeUndefined();
  });

  it("traces a tree navigation that summarises the branch left as a branchSummary span", async () => {
    const tracing = memoryTracing();
    const { harness, session } = await createHarness(
      [{ text: "a1" }, { text: "a2" }, summariserTurn("BRANCH")],
      { compactionPort: standInCompaction() },
    );
    await harness.prompt("q1");
    await harness.prompt("q2");
    const handle = instrument(harness, { tracer: tracing.tracer });
    const result = await harness.navigateTree(session.getBranch()[2]!.id, { summarize: true });
    handle.dispose();
    expect(result.summaryEntry?.summary).toBe("BRANCH");
    const spans = tracing.spans();
    expect(treeLines(spanTree(spans))).toEqual(["branchSummary"]);
    expect(spans[0]!.attributes["agentchart.harness.phase"]).toBe("branchSummary");
  });

  it("marks a failed automatic compaction's span as an error", async () => {
    const tracing = memoryTracing();
    const { harness } = await createHarness([{ text: "x".repeat(400) }, { error: "summariser down" }], {
      compactionPort: standInCompaction(),
      model: { ...testModel, contextWindow: 200 },
      compaction: { reserveTokens: 100 },
    });
    const handle = instrument(harness, { tracer: tracing.tracer });
    await harness.prompt("q");
    await harness.waitForIdle();
    handle.dispose();
    const [compaction] = named(tracing.spans(), "compaction");
    expect(compaction!.status.code).toBe(SpanStatusCode.ERROR);
    expect(compaction!.status.message).toContain("summariser down");
    expect(compaction!.attributes).toMatchObject({
      "error.type": "compaction_failed",
      "agentchart.compaction.reason": "threshold",
    });
  });

  it("ends every span when a prompt is aborted while waiting to retry", async () => {
    const tracing = memoryTracing();
    const { harness } = await createHarness([{ error: "503 unavailable" }, { text: "never" }], {
      retry: { maxRetries: 2, baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const handle = instrument(harness, { tracer: tracing.tracer });
    const reply = harness.prompt("p");
    await phaseReached(harness, "retry");
    expect(tracing.openSpans().sort()).toEqual(["invoke_agent agentchart", "retry"]);
    await harness.abort();
    await reply;
    expect(tracing.openSpans()).toEqual([]);
    handle.dispose();
    expect(treeLines(spanTree(tracing.spans()))).toEqual([
      "invoke_agent agentchart",
      "  chat scripted-1",
      "  retry",
    ]);
  });
});
