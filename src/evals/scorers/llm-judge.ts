import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import type { ModelInput } from "../../types/model.js";
import type { StreamFn } from "../../types/stream.js";
import type { EvalCase } from "../eval-case.js";
import type { EvalRun } from "../eval-run.js";
import { createScorer, type Scorer } from "../scorer.js";

/** Options of {@link llmJudge}. */
export interface LlmJudgeOptions {
  /** The scorer's name in reports (default `llmJudge`). */
  name?: string;
  /** What a good answer does, in plain words; the judge scores the run against it. */
  rubric: string;
  /** The judge's model, and the StreamFn that reaches it (any provider, or a scripted model in tests). */
  model: ModelInput;
  streamFn: StreamFn;
  /** Lowest passing score (default 0.5). */
  threshold?: number;
}

/** What the judge must answer: its typed output. */
const verdictSchema = z.object({
  score: z.number().min(0).max(1),
  reason: z.string(),
});

const JUDGE_SYSTEM_PROMPT =
  "You grade the answers of an AI agent. Read the rubric, the request, the expected answer if any, the " +
  "tool calls the agent made and its final answer. Answer with JSON only: " +
  '{"score": a number from 0 (fails the rubric) to 1 (fully meets it), "reason": one sentence}.';

/**
 * Scores a run with a model as judge: the judge reads the rubric, the case and the run, and answers a
 * score from 0 to 1 and a reason (typed output, repaired by the agent when it does not validate).
 *
 * Contract: returns a {@link Scorer}; each scoring is one judge run on a fresh agent. A judge that
 * fails (model error, no valid verdict) makes the scorer throw, which the runner reports for that case
 * as a score of 0 with the judge's error as the reason.
 *
 * @example
 * ```ts
 * const judge = llmJudge({ rubric: "Names the package and its version.", model: "gpt-4.1-mini", streamFn });
 * ```
 */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  return createScorer({
    name: options.name ?? "llmJudge",
    threshold: options.threshold ?? 0.5,
    async score(run, evalCase) {
      const judge = new Agent({
        model: options.model,
        streamFn: options.streamFn,
        systemPrompt: JUDGE_SYSTEM_PROMPT,
      });
      const result = await judge.prompt(judgeRequest(options.rubric, evalCase, run), {
        output: verdictSchema,
      });
      if (result.output === undefined) {
        throw new Error(
          `the judge gave no verdict: ${result.error?.message ?? `it stopped (${result.stopReason})`}`,
        );
      }
      return result.output;
    },
  });
}

function judgeRequest(rubric: string, evalCase: EvalCase, run: EvalRun): string {
  const request =
    typeof evalCase.input === "string" ? evalCase.input : JSON.stringify(evalCase.input.at(-1) ?? "");
  const calls = run.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.arguments ?? {})})`);
  return [
    `<rubric>\n${rubric}\n</rubric>`,
    `<request>\n${request}\n</request>`,
    ...(evalCase.expectedOutput === undefined ? [] : [`<expected>\n${evalCase.expectedOutput}\n</expected>`]),
    `<tool_calls>\n${calls.join("\n") || "(none)"}\n</tool_calls>`,
    `<answer>\n${run.text}\n</answer>`,
  ].join("\n");
}
