import { from, type Subscription } from "rxjs";
import { fromPromise } from "xstate";
import { defaultConvertToLlm, failedAssistantMessage } from "../loop/messages.js";
import { toToolSpec } from "../tools/define-tool.js";
import { errorText } from "../types/error-text.js";
import type { AgentEventSink } from "../types/loop.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AssistantMessageEvent, StreamOptions } from "../types/stream.js";
import type { AgentTool } from "../types/tool.js";
import { type AgentCallbacks, activeTools, agentEmitter, runtimeOf } from "./agent-runtime.js";

export interface StreamReplyInput {
  callbacks: AgentCallbacks;
  model: Model;
  thinkingLevel: ThinkingLevel;
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AgentTool[];
  /** Stream options of the context (data); they win over the runtime's (`callbacks`: keys, headers, hooks). */
  streamOptions: Partial<Record<string, unknown>>;
  /** The run's signal: aborting it ends the reply at once with the partial content. */
  signal: AbortSignal;
  sink: AgentEventSink;
}

export interface StreamReplyOutput {
  message: AssistantMessage;
  /** Whether `message_start` was already emitted for this reply. */
  started: boolean;
}

/** Every key a StreamFn may receive; the compiler checks the list against `StreamOptions`. */
const STREAM_OPTION_KEYS = [
  "sessionId",
  "apiKey",
  "headers",
  "metadata",
  "maxTokens",
  "temperature",
  "timeoutMs",
  "maxRetries",
  "onPayload",
  "onResponse",
] as const satisfies readonly Exclude<keyof StreamOptions, "signal" | "reasoning">[];

/**
 * The options a StreamFn receives: the allowlisted fields of `persisted`, else of `runtime`, then the
 * reasoning level and the signal. Nothing else of an agent's options reaches the StreamFn.
 */
export function streamOptionsOf(
  persisted: Partial<Record<string, unknown>>,
  runtime: object,
  thinkingLevel: ThinkingLevel,
  signal: AbortSignal,
): StreamOptions {
  const options: Record<string, unknown> = {};
  const fallback = runtime as Partial<Record<string, unknown>>;
  for (const key of STREAM_OPTION_KEYS) {
    const value = persisted[key] ?? fallback[key];
    if (value !== undefined) options[key] = value;
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
  const { callbacks, model, signal, sink } = input;
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
      const transformed = callbacks.transformContext
        ? await callbacks.transformContext(input.messages, signal)
        : input.messages;
      const messages = callbacks.convertToLlm
        ? await callbacks.convertToLlm(transformed)
        : defaultConvertToLlm(transformed);
      if (settled) return;
      const source = await callbacks.streamFn(
        model,
        { systemPrompt: input.systemPrompt, messages, tools: input.tools.map(toToolSpec) },
        streamOptionsOf(input.streamOptions, callbacks, input.thinkingLevel, signal),
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

/** The request of one model call as data: the `streaming` state's input to the stream actor. */
export interface StreamRequest {
  model: Model;
  thinkingLevel: ThinkingLevel;
  systemPrompt: string;
  messages: AgentMessage[];
  toolNames: string[];
  streamOptions: Partial<Record<string, unknown>>;
  toolExecution: "parallel" | "sequential";
}

/** What the stream actor hands the agent: the reply, and whether its tool calls must run one by one. */
export interface StreamedReply extends StreamReplyOutput {
  /** Configured sequential, or a called tool has `executionMode: "sequential"`. */
  sequential: boolean;
}

/**
 * The stream actor invoked by the `streaming` state: takes the request as data, finds the StreamFn,
 * the callbacks, the tools and the run's signal in the agent's runtime, and emits deltas straight to
 * the agent's `actor.on` listeners. Its own signal fires only when the agent actor is stopped from
 * outside mid-reply: that ends the run, so it aborts the run's controller, whose signal the reply and
 * the StreamFn follow.
 */
export const streamReplyActor = fromPromise<StreamedReply, StreamRequest>(async ({ input, self, signal }) => {
  const runtime = runtimeOf(self);
  const controller = runtime.controller;
  signal.addEventListener("abort", () => controller.abort(), { once: true });
  const tools = activeTools(runtime, input.toolNames);
  const reply = await streamReply({
    callbacks: runtime.callbacks,
    model: input.model,
    thinkingLevel: input.thinkingLevel,
    systemPrompt: input.systemPrompt,
    messages: input.messages,
    tools,
    streamOptions: input.streamOptions,
    signal: controller.signal,
    sink: agentEmitter(self),
  });
  const sequential =
    input.toolExecution === "sequential" ||
    reply.message.content.some(
      (block) => block.type === "toolCall" && runtime.tools.get(block.name)?.executionMode === "sequential",
    );
  return { ...reply, sequential };
});
