import type { StreamFn } from "../types/stream.js";
import { canonicalRequestOf, requestKeyOf } from "./canonical-request.js";
import type { Recording } from "./recording.js";
import type { CanonicalRequest, RecordedModelCall } from "./recording-format.js";
import { type ReplayDivergence, ReplayDivergenceError } from "./replay-divergence-error.js";
import { replayedReply } from "./replayed-reply.js";
import { requestDifferences } from "./request-diff.js";

/** A StreamFn that answers from a recording (see `replayModel`). */
export interface ReplayModel extends StreamFn {
  /** The first divergence: once set, every later request fails with it too. */
  readonly divergence: ReplayDivergenceError | undefined;
  /** Recorded replies not played yet. */
  remaining(): number;
  /** Replies playing now (one parked at its recorded abort, waiting for the run's abort, excluded). */
  playing(): number;
  /** Replies parked at their recorded abort, waiting for the run's abort. */
  parked(): number;
}

/** Options of `replayModel`. */
export interface ReplayModelOptions {
  /** Called with the divergence when a request is not in the recording (before the request fails with it). */
  onDivergence?: (error: ReplayDivergenceError) => void;
  /** Called whenever `playing()` or `parked()` changes (a driver re-applying commands waits on it; see `verifyReplay`). */
  onPlayingChange?: () => void;
}

interface Indexed {
  call: RecordedModelCall;
  step: number;
  used: boolean;
}

/**
 * A StreamFn that answers each request from `recording`, offline: the recorded reply whose canonical
 * request (model, system prompt, messages without timestamps, tool specs, output request, reply
 * options) equals this one's, its events streamed again; the same request asked twice gets its
 * recorded replies in order. A request the recording does not hold fails — the run ends with a
 * `ReplayDivergenceError` as a failed reply — naming the step, the agent path and what differs from the
 * nearest recorded request; no recorded reply is played after it.
 *
 * Contract: synchronous; never throws. An aborted recorded reply plays up to its abort and waits for
 * the run's abort signal.
 *
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { Agent, Recording } from "agentchart";
 * import { replayTools } from "agentchart/testing";
 * const recording = Recording.fromJSONL(readFileSync("runs/refund.recording.jsonl", "utf8"));
 * const agent = new Agent({ model, streamFn: replayModel(recording), tools: replayTools(recording, tools) });
 * ```
 */
export function replayModel(recording: Recording, options: ReplayModelOptions = {}): ReplayModel {
  const indexed: Indexed[] = [];
  const byKey = new Map<string, Indexed[]>();
  recording.entries.forEach((entry, step) => {
    if (entry.kind !== "model_call") return;
    const item = { call: entry, step, used: false };
    indexed.push(item);
    const key = requestKeyOf(entry.request);
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  });
  let divergence: ReplayDivergenceError | undefined;
  let playing = 0;
  let parkedCount = 0;
  const changePlaying = (by: number, parking = 0) => {
    playing += by;
    parkedCount += parking;
    options.onPlayingChange?.();
  };
  const stream: StreamFn = (model, context, streamOptions) => {
    if (divergence) throw divergence;
    const request = canonicalRequestOf(model, context, streamOptions);
    const match = byKey.get(requestKeyOf(request))?.find((item) => !item.used);
    if (!match) {
      divergence = new ReplayDivergenceError(divergenceOf(request, indexed));
      options.onDivergence?.(divergence);
      throw divergence;
    }
    match.used = true;
    changePlaying(1); // from the request on: the reply plays once the stream is consumed
    return played(match.call, streamOptions.signal);
  };
  async function* played(call: RecordedModelCall, signal: AbortSignal | undefined) {
    let parked = false;
    try {
      yield* replayedReply(call, signal, () => {
        parked = true;
        changePlaying(-1, 1);
      });
    } finally {
      changePlaying(parked ? 0 : -1, parked ? -1 : 0);
    }
  }
  return Object.assign(stream, {
    get divergence() {
      return divergence;
    },
    remaining: () => indexed.filter((item) => !item.used).length,
    playing: () => playing,
    parked: () => parkedCount,
  }) as ReplayModel;
}

/** The divergence of `request` from the nearest recorded request: the unplayed one with the fewest differences. */
function divergenceOf(request: CanonicalRequest, indexed: Indexed[]): ReplayDivergence {
  const candidates = indexed.filter((item) => !item.used);
  let nearest: { item: Indexed; differences: string[] } | undefined;
  for (const item of candidates.length > 0 ? candidates : indexed) {
    const differences = requestDifferences(item.call.request, request);
    if (!nearest || differences.length < nearest.differences.length) nearest = { item, differences };
  }
  if (!nearest)
    return {
      what: "model_request",
      step: 0,
      agentPath: [],
      differences: ["the recording holds no model request"],
      expected: undefined,
      actual: request,
    };
  const differences =
    nearest.differences.length > 0
      ? nearest.differences
      : ["asked once more than recorded (every recorded reply to it was played)"];
  return {
    what: "model_request",
    step: nearest.item.step,
    agentPath: nearest.item.call.agentPath,
    differences,
    expected: nearest.item.call.request,
    actual: request,
  };
}
