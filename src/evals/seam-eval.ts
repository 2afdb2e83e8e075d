import { from, lastValueFrom } from "rxjs";
import { scriptedModel } from "../providers/scripted/scripted-model.js";
import type { ScriptedBlock, ScriptedReply } from "../providers/scripted/scripted-reply.js";
import { Recording } from "../replay/recording.js";
import { errorText } from "../types/error-text.js";
import { type AssistantMessage, emptyUsage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamFn, ToolSpec } from "../types/stream.js";
import type { EvalCase } from "./eval-case.js";
import { EvalInputError } from "./eval-input-error.js";
import { type CaseScore, caseScore, passHatK } from "./eval-result.js";
import { evalRunOf } from "./eval-run.js";
import { applyScorer, type Scorer, type ScorerVerdict } from "./scorer.js";
import { type SeamCall, type SeamRecording, seamRecordingOf } from "./seam-recording.js";

/** What answers step k instead of the recording: a candidate model, prompt or tool set. */
export interface SeamCandidate {
  /** The candidate model's StreamFn (default: replay the recorded reply, to test a prompt or tools). */
  streamFn: StreamFn;
  /** Default: the recording's model. */
  model?: Model;
  /** Replaces the recorded request's system prompt (a candidate prompt). */
  systemPrompt?: string;
  /** Replaces the recorded request's tools (a candidate tool description or tool set). */
  tools?: ToolSpec[];
}

/** Options of {@link seamEval}. */
export interface SeamEvalOptions {
  recording: SeamRecording | Recording;
  /** The 0-based model call to hand to the candidate. */
  step: number;
  candidate: SeamCandidate;
  scorers: readonly Scorer[];
  /** Samples of the candidate's decision (default 1): pass^k is over them. */
  samples?: number;
  /**
   * What a good decision is (default: the recorded reply's tool calls and text, so a scorer such as
   * `trajectoryMatch()` checks the candidate decides as the recording did).
   */
  expected?: Pick<EvalCase, "expectedOutput" | "expectedTrajectory">;
}

/** The candidate's decisions at one step, scored. */
export interface SeamEvalResult {
  step: number;
  replies: AssistantMessage[];
  scores: CaseScore[];
  /** pass^k: every sample passed every scorer that applies. */
  passed: boolean;
}

/**
 * Scores one decision of a recorded run without re-running the trajectory: the request of step k
 * (every earlier step as recorded) goes to the candidate model, prompt or tools `samples` times, and
 * each reply is scored as a run of its own.
 *
 * Contract: async; rejects with {@link EvalInputError} `invalid_step` for a step the recording does not
 * hold, `invalid_option` for fewer than 1 sample; a candidate that fails gives a reply with
 * `stopReason: "error"`, scored as is.
 *
 * @example
 * ```ts
 * import { trajectoryMatch } from "agentchart/evals";
 * const result = await seamEval({ recording, step: 1, candidate: { streamFn }, scorers: [trajectoryMatch()], samples: 5 });
 * result.passed; // pass^5
 * ```
 */
export async function seamEval(options: SeamEvalOptions): Promise<SeamEvalResult> {
  const { step, candidate } = options;
  const recording = seamsOf(options.recording);
  const recorded = recordedCall(recording, step);
  const samples = options.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new EvalInputError(
      "invalid_option",
      `seamEval: samples must be a whole number ≥ 1, not ${samples}`,
    );
  }
  const request: LlmContext = {
    ...recorded.request,
    ...(candidate.systemPrompt !== undefined ? { systemPrompt: candidate.systemPrompt } : {}),
    ...(candidate.tools !== undefined ? { tools: candidate.tools } : {}),
  };
  const expected = options.expected ?? expectationOf(recorded.reply);
  const evalCase: EvalCase = { id: `step ${step}`, input: request.messages, ...expected };
  const replies: AssistantMessage[] = [];
  const verdicts = new Map<string, ScorerVerdict[]>();
  for (let sample = 0; sample < samples; sample++) {
    const reply = await replyOf(candidate.streamFn, candidate.model ?? recording.model, request);
    replies.push(reply);
    const run = evalRunOf(evalCase.id, [reply]);
    for (const scorer of options.scorers) {
      const verdict = await applyScorer(scorer, run, evalCase);
      if (verdict !== null) verdicts.set(scorer.name, [...(verdicts.get(scorer.name) ?? []), verdict]);
    }
  }
  const scores = [...verdicts].map(([scorer, list]) => caseScore(scorer, list));
  return {
    step,
    replies,
    scores,
    passed: passHatK(scores.map((score) => score.passHatK)) || scores.length === 0,
  };
}

/**
 * A StreamFn that replays a recorded run's replies in order, except the reply of step k, which the
 * candidate gives: to re-run the whole agent (real tools and all) with one decision changed.
 *
 * Contract: throws {@link EvalInputError} `invalid_step` for a step the recording does not hold; after the
 * recorded calls, a call gets an error reply saying the recording has no more.
 *
 * @example
 * ```ts
 * import { Agent } from "agentchart";
 * import { seamRecordingOf } from "agentchart/evals";
 * const seams = seamRecordingOf(recording);
 * const agent = new Agent({ model: seams.model, streamFn: replayExceptStep(seams, 2, streamFn) });
 * ```
 */
export function replayExceptStep(
  from: SeamRecording | Recording,
  step: number,
  candidate: StreamFn,
): StreamFn {
  const recording = seamsOf(from);
  recordedCall(recording, step);
  const replay = scriptedModel(
    recording.calls.filter((_, index) => index !== step).map((call) => scriptedReplyOf(call.reply)),
  );
  let calls = 0;
  return (model, context, options) =>
    calls++ === step ? candidate(model, context, options) : replay(model, context, options);
}

function seamsOf(recording: SeamRecording | Recording): SeamRecording {
  return recording instanceof Recording ? seamRecordingOf(recording) : recording;
}

function recordedCall(recording: SeamRecording, step: number): SeamCall {
  const call = Number.isInteger(step) ? recording.calls[step] : undefined;
  if (call === undefined) {
    throw new EvalInputError(
      "invalid_step",
      `step ${step} is not in the recording: it holds ${recording.calls.length} model calls (steps 0–${recording.calls.length - 1})`,
    );
  }
  return call;
}

function expectationOf(reply: AssistantMessage): Pick<EvalCase, "expectedOutput" | "expectedTrajectory"> {
  const run = evalRunOf("recorded", [reply]);
  return { expectedOutput: run.text, expectedTrajectory: run.toolCalls };
}

/** The final assistant message of one StreamFn call (its error message when it errs or throws). */
async function replyOf(streamFn: StreamFn, model: Model, request: LlmContext): Promise<AssistantMessage> {
  try {
    const last = await lastValueFrom(from(await streamFn(model, request, {})));
    if (last.type === "done") return last.message;
    if (last.type === "error") return last.error;
    throw new Error(`the stream ended with a ${last.type} event, not done or error`);
  } catch (error) {
    return {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "error",
      errorMessage: `the candidate failed: ${errorText(error)}`,
      timestamp: Date.now(),
    };
  }
}

/** A recorded reply as the scripted model's reply (same blocks, ids, stop reason and usage). */
function scriptedReplyOf(reply: AssistantMessage): ScriptedReply {
  const content: ScriptedBlock[] = reply.content.map((block) => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (block.type === "thinking") return { type: "thinking", thinking: block.thinking };
    return { type: "toolCall", id: block.id, name: block.name, arguments: block.arguments };
  });
  const { stopReason } = reply;
  return stopReason === "error" || stopReason === "aborted"
    ? { content, error: reply.errorMessage ?? "the recorded reply failed", usage: reply.usage }
    : { content, stopReason, usage: reply.usage };
}
