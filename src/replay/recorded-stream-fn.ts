import { from, Observable } from "rxjs";
import { errorText } from "../types/error-text.js";
import { isPromiseLike } from "../types/maybe-async.js";
import { type AssistantMessage, emptyUsage } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { AssistantEventSource, AssistantMessageEvent, StreamFn } from "../types/stream.js";
import { canonicalRequestOf } from "./canonical-request.js";
import type { Recording } from "./recording.js";
import type { RecordedModelCall, RecordedReplyEvent } from "./recording-format.js";

// The StreamFn each recorded one wraps: a sub-agent inherits its parent's StreamFn and records it
// again with its own agent path, never twice.
const unrecorded = new WeakMap<StreamFn, StreamFn>();

/**
 * `streamFn`, recording each request (canonical: no keys, headers or hooks) and its reply's events
 * (written without `partial`) into `recording` as the agent at `agentPath`. A StreamFn that throws is recorded
 * with its error's message and throws the same.
 *
 * Contract: synchronous; never throws; the reply's events reach the caller unchanged.
 *
 * ```ts
 * import { Recording } from "agentchart";
 * import { scriptedModel } from "agentchart/testing";
 * const streamFn = recordedStreamFn(scriptedModel([{ text: "Hi!" }]), new Recording(), []);
 * ```
 */
export function recordedStreamFn(
  streamFn: StreamFn,
  recording: Recording,
  agentPath: readonly string[],
): StreamFn {
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
    const failed = (error: unknown): never => {
      call.error = errorText(error);
      throw error;
    };
    let source: ReturnType<StreamFn>;
    try {
      source = inner(model, context, options);
    } catch (error) {
      return failed(error);
    }
    return isPromiseLike(source)
      ? Promise.resolve(source).then((resolved) => observed(resolved, call, model, options.signal), failed)
      : observed(source, call, model, options.signal);
  };
  unrecorded.set(recorded, inner);
  return recorded;
}

/**
 * `source`'s events, each kept in `call` (by reference: `partial` is left out when the recording is
 * written) on its way to the subscriber.
 */
function observed(
  source: AssistantEventSource,
  call: RecordedModelCall,
  model: Model,
  signal: AbortSignal | undefined,
): Observable<AssistantMessageEvent> {
  return new Observable<AssistantMessageEvent>((subscriber) => {
    let partial: AssistantMessage | undefined;
    const subscription = from(source).subscribe({
      next: (event) => {
        call.events.push(event as unknown as RecordedReplyEvent);
        if ("partial" in event) partial = event.partial;
        else call.reply = event.type === "done" ? event.message : event.error;
        subscriber.next(event);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    return () => {
      subscription.unsubscribe();
      // The agent stops reading a reply the run aborted (it ends the reply itself, with the content so
      // far): the recording ends it the same way, so a replay stops at that point and waits for the abort.
      if (call.reply || !signal?.aborted) return;
      call.events.push({ type: "error", reason: "aborted" });
      // As the agent ends it: the blocks so far, kept by reference (a provider may still fill the last one).
      const cut = partialOrEmpty(partial, model);
      call.reply = {
        ...cut,
        content: [...cut.content],
        stopReason: "aborted",
        errorMessage: "Request was aborted",
      };
    };
  });
}

/** The reply so far, or an empty one when nothing streamed yet. */
function partialOrEmpty(partial: AssistantMessage | undefined, model: Model): AssistantMessage {
  return (
    partial ?? {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "aborted",
      timestamp: Date.now(),
    }
  );
}
