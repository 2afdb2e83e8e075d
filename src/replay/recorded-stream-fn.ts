import { defer, from, mergeMap, tap } from "rxjs";
import { errorText } from "../types/error-text.js";
import type { AssistantMessageEvent, StreamFn } from "../types/stream.js";
import { canonicalRequestOf } from "./canonical-request.js";
import type { RecordedModelCall, RecordedReplyEvent } from "./recording-format.js";
import type { Recording } from "./recording.js";

// The StreamFn each recorded one wraps: a sub-agent inherits its parent's StreamFn and records it
// again with its own agent path, never twice.
const unrecorded = new WeakMap<StreamFn, StreamFn>();

/**
 * `streamFn`, recording each request (canonical: no keys, headers or hooks) and its reply's events
 * (without `partial`) into `recording` as the agent at `agentPath`. A StreamFn that throws is recorded
 * with its error's message and throws the same.
 *
 * Contract: synchronous; never throws; the reply's events reach the caller unchanged.
 *
 * ```ts
 * const streamFn = recordedStreamFn(scriptedModel([{ text: "Hi!" }]), new Recording(), []);
 * ```
 */
export function recordedStreamFn(streamFn: StreamFn, recording: Recording, agentPath: readonly string[]): StreamFn {
  const inner = unrecorded.get(streamFn) ?? streamFn;
  const recorded: StreamFn = (model, context, options) => {
    const call: RecordedModelCall = {
      kind: "model_call",
      agentPath: [...agentPath],
      key: "",
      request: canonicalRequestOf(model, context, options),
      events: [],
    };
    recording.add(call);
    return defer(async () => {
      try {
        return await inner(model, context, options);
      } catch (error) {
        call.error = errorText(error);
        throw error;
      }
    }).pipe(
      mergeMap((source) => from(source)),
      tap((event) => {
        call.events.push(withoutPartial(event));
        if (event.type === "done") call.reply = event.message;
        else if (event.type === "error") call.reply = event.error;
      }),
    );
  };
  unrecorded.set(recorded, inner);
  return recorded;
}

function withoutPartial(event: AssistantMessageEvent): RecordedReplyEvent {
  if (!("partial" in event)) return event.type === "done" ? { type: "done", reason: event.reason } : { type: "error", reason: event.reason };
  const { partial: _partial, ...rest } = event;
  return rest;
}
