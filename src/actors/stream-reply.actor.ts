import { from, type Subscription } from "rxjs";
import { fromPromise } from "xstate";
import { convertGrowingTranscript } from "../loop/llm-messages.js";
import { defaultConvertToLlm, errorText, failedAssistantMessage } from "../loop/messages.js";
import { toToolSpec } from "../tools/define-tool.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig } from "../types/loop.js";
import type { AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AssistantMessageEvent, StreamOptions } from "../types/stream.js";

export interface StreamReplyInput {
  config: AgentLoopConfig;
  model: Model;
  thinkingLevel: ThinkingLevel;
  context: AgentContext;
  /** The run's signal: aborting it ends the reply at once with the partial content. */
  signal: AbortSignal;
  sink: AgentEventSink;
}

export interface StreamReplyOutput {
  message: AssistantMessage;
  /** Whether `message_start` was already emitted for this reply. */
  started: boolean;
}

const CONFIG_ONLY_KEYS = new Set<string>([
  "model",
  "streamFn",
  "convertToLlm",
  "transformContext",
  "getSteeringMessages",
  "getFollowUpMessages",
  "restoreQueuedMessages",
  "toolExecution",
  "beforeToolCall",
  "afterToolCall",
  "prepareNextTurn",
  "shouldStopAfterTurn",
  "steering",
  "maxTurns",
  "signal",
  "thinkingLevel",
  "toolContext",
  "inspect",
]);

/** The StreamOptions part of a loop config (everything that is not a loop callback). */
export function streamOptionsOf(config: AgentLoopConfig, thinkingLevel: ThinkingLevel, signal: AbortSignal) {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(config)) {
    if (!CONFIG_ONLY_KEYS.has(key)) options[key] = config[key as keyof AgentLoopConfig];
  }
  if (thinkingLevel !== "off") options.reasoning = thinkingLevel;
  options.signal = signal;
  return options as StreamOptions;
}

/**
 * Streams one assistant reply: transformContext → convertToLlm → StreamFn, forwarding deltas to the
 * sink directly (they never pass through the interpreter). Always resolves with a final message:
 * failures and contract violations of the StreamFn become `stopReason: "error"`, an abort of the run
 * signal becomes `stopReason: "aborted"` immediately, even if the StreamFn ignores the signal.
 */
export function streamReply(input: StreamReplyInput): Promise<StreamReplyOutput> {
  const { config, model, context, signal, sink } = input;
  let partial: AssistantMessage | undefined;
  let started = false;
  let subscription: Subscription | undefined;

  return new Promise<StreamReplyOutput>((resolve) => {
    let settled = false;
    const finish = (message: AssistantMessage) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      subscription?.unsubscribe();
      resolve({ message, started });
    };
    const fail = (reason: "error" | "aborted", text: string) =>
      finish(failedAssistantMessage(model, reason, text, partial));
    const onAbort = () => fail("aborted", "Request was aborted");
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });

    const markStarted = (message: AssistantMessage) => {
      partial = message;
      if (started) return;
      started = true;
      sink({ type: "message_start", message });
    };
    const onEvent = (event: AssistantMessageEvent) => {
      if (settled) return;
      switch (event?.type) {
        case "done":
          return isAssistantMessage(event.message)
            ? finish(event.message)
            : fail("error", "Provider sent a done event without a message");
        case "error":
          if (!isAssistantMessage(event.error))
            return fail("error", "Provider sent an error event without a message");
          if (event.error.stopReason !== "error" && event.error.stopReason !== "aborted") {
            event.error.stopReason = event.reason === "aborted" ? "aborted" : "error";
          }
          return finish(event.error);
        case "start":
          return markStarted(event.partial);
        case undefined:
          return fail("error", "Provider sent an event without a type");
        default:
          markStarted(event.partial ?? partial ?? failedAssistantMessage(model, "error", ""));
          sink({
            type: "message_update",
            message: partial as AssistantMessage,
            assistantMessageEvent: event,
          });
      }
    };

    (async () => {
      const transformed = config.transformContext
        ? await config.transformContext(context.messages, signal)
        : context.messages;
      const messages = config.convertToLlm
        ? await config.convertToLlm(transformed)
        : transformed === context.messages
          ? convertGrowingTranscript(transformed)
          : defaultConvertToLlm(transformed);
      if (settled) return;
      const source = await config.streamFn(
        model,
        { systemPrompt: context.systemPrompt, messages, tools: context.tools.map(toToolSpec) },
        streamOptionsOf(config, input.thinkingLevel, signal),
      );
      if (settled) return;
      subscription = from(source).subscribe({
        next: onEvent,
        error: (error: unknown) => fail("error", `Provider stream failed: ${errorText(error)}`),
        complete: () => fail("error", "Provider stream ended without a final event"),
      });
      if (settled) subscription.unsubscribe();
    })().catch((error: unknown) => fail("error", errorText(error)));
  });
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as AssistantMessage).role === "assistant" &&
    Array.isArray((value as AssistantMessage).content)
  );
}

/** The stream actor invoked by the `streaming` state. */
export const streamReplyActor = fromPromise<
  StreamReplyOutput,
  StreamReplyInput & { controller: AbortController }
>(({ input, signal }) => {
  // The actor's own signal fires only when the machine is stopped from outside while streaming: that
  // ends the run, so it aborts the run's controller (whose signal the reply and the StreamFn follow).
  // Cheaper than `AbortSignal.any`, which allocates a signal and weak references on every call.
  signal.addEventListener("abort", () => input.controller.abort(), { once: true });
  return streamReply(input);
});
