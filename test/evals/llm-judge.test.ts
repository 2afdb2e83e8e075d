import { describe, expect, it } from "vitest";
import { applyScorer, type EvalCase, evalRunOf, llmJudge, runEval } from "../../src/evals.js";
import { openai } from "../../src/openai.js";
import { scriptedModel } from "../../src/testing.js";
import type { AssistantMessage } from "../../src/types/messages.js";
import { emptyUsage } from "../../src/types/messages.js";
import { testModel } from "../support/loop-harness.js";
import { chatModel, chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

const answer: AssistantMessage = {
  role: "assistant",
  content: [{ type: "text", text: "agentchart 0.2.0" }],
  api: "scripted",
  provider: "test",
  model: "m",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 1,
};
const run = evalRunOf("pkg", [answer]);
const evalCase: EvalCase = { id: "pkg", input: "Which package is this?", expectedOutput: "agentchart" };

describe("llmJudge", () => {
  it("asks the judge with the rubric, the case and the answer, and returns its score and reason", async () => {
    const judge = scriptedModel([{ text: '{"score":0.8,"reason":"names the package, not its purpose"}' }]);
    const verdict = await applyScorer(
      llmJudge({ rubric: "Names the package and says what it is for.", model: testModel, streamFn: judge }),
      run,
      evalCase,
    );
    expect(verdict).toEqual({
      scorer: "llmJudge",
      score: 0.8,
      reason: "names the package, not its purpose",
      passed: true,
    });
    const request = judge.calls[0]?.context;
    const asked = JSON.stringify(request?.messages);
    for (const part of [
      "Names the package and says what it is for.",
      "Which package is this?",
      "agentchart 0.2.0",
      "<expected>",
    ]) {
      expect(asked).toContain(part);
    }
    expect(request?.output?.schema).toMatchObject({ properties: { score: { type: "number" } } });
  });

  it("a judge that fails scores 0 with its error, per case, and the eval goes on", async () => {
    let calls = 0;
    // The first case's judge errs on every call (repairs included); the second's answers.
    const judge = llmJudge({
      name: "judge",
      rubric: "Is correct.",
      model: testModel,
      streamFn: (model, context, options) =>
        scriptedModel([
          context.messages.some((m) => JSON.stringify(m).includes("second"))
            ? { text: '{"score":1,"reason":"ok"}' }
            : { error: `judge down ${++calls}` },
        ])(model, context, options),
    });
    const result = await runEval({
      cases: [
        { id: "first", input: "first" },
        { id: "second", input: "second" },
      ],
      agent: () => ({ model: testModel, streamFn: scriptedModel([{ text: "answer" }]) }),
      scorers: [judge],
      concurrency: 1,
    });
    const reasons = result.cases.map((entry) => [
      entry.caseId,
      entry.score,
      entry.scores[0]?.samples[0]?.reason,
    ]);
    expect(reasons[0]?.[1]).toBe(0);
    expect(String(reasons[0]?.[2])).toMatch(/^the scorer threw: the judge gave no verdict: .*judge down 1/);
    expect(reasons[1]).toEqual(["second", 1, "ok"]);
  });

  it("judges through the OpenAI provider against an OpenAI-compatible server", async () => {
    const server = await OpenAITestServer.start();
    try {
      server.enqueue(
        streamReply([
          chunk({ role: "assistant", content: '{"score": 0.25, "reason": "' }),
          chunk({ content: 'only the version"}' }),
          chunk({}, "stop"),
          usageChunk(300, 12),
        ]),
      );
      const verdict = await applyScorer(
        llmJudge({
          rubric: "Says what the package is for.",
          model: chatModel(),
          streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
        }),
        run,
        evalCase,
      );
      expect(verdict).toEqual({ scorer: "llmJudge", score: 0.25, reason: "only the version", passed: false });
      const body = server.requests[0]?.body;
      expect(body.response_format).toMatchObject({ type: "json_schema" });
      expect(JSON.stringify(body.messages)).toContain("Says what the package is for.");
    } finally {
      await server.close();
    }
  });
});
