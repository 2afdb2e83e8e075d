import { failedAssistantMessage } from "../loop/messages.js";
import type { Recording } from "../replay/recording.js";
import type { AssistantMessage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import { resolveModel } from "../types/resolve-model.js";
import type { LlmContext } from "../types/stream.js";

/** One model call of a recorded run as a seam eval reads it: the request the agent sent and the reply it got. */
export interface SeamCall {
  request: LlmContext;
  reply: AssistantMessage;
}

/**
 * What a seam eval needs of a recorded run: its model and its model calls in order (step k is
 * `calls[k]`). A `Recording` (docs/replay.md) becomes one with `seamRecordingOf`; seam evals take
 * either.
 */
export interface SeamRecording {
  model: Model;
  calls: SeamCall[];
}

/**
 * The top-level agent's model calls of a recording, as a seam eval reads them: each call's request
 * (system prompt, messages, tools, typed output) and the reply it got — a StreamFn that threw gives a
 * failed reply naming its error. Sub-agents' calls are left out (their steps are not the run's).
 *
 * Contract: pure; never throws; the model is the first call's (`resolveModel` of its provider, api
 * and id; a recording without model calls gets the recording's header model id "recorded").
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { Recording } from "agentchart";
 * const seams = seamRecordingOf(Recording.fromJSONL(readFileSync("run.recording.jsonl", "utf8")));
 * seams.calls.length; // the run's model calls, step 0 first
 * ```
 */
export function seamRecordingOf(recording: Recording): SeamRecording {
  const calls = recording.modelCalls.filter((call) => call.agentPath.length === 0);
  const model = resolveModel(calls[0]?.request.model ?? { id: "recorded" });
  return {
    model,
    calls: calls.map(({ request, reply, error }) => ({
      request: {
        systemPrompt: request.systemPrompt,
        messages: request.messages,
        tools: request.tools,
        ...(request.output ? { output: request.output } : {}),
      },
      reply: reply ?? (failedAssistantMessage(model, "error", error ?? "no reply") as AssistantMessage),
    })),
  };
}
