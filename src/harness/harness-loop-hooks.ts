import type { AfterToolCallResult, AgentLoopConfig } from "../types/loop.js";
import type { AgentMessage, ImageContent } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamFn, StreamOptions } from "../types/stream.js";
import type { AgentHarnessError } from "./harness-errors.js";
import {
  applyStreamOptionsPatch,
  type HarnessResources,
  type HarnessStreamOptions,
  type HookRegistry,
} from "./harness-hooks.js";

/** What the loop callbacks need from the harness. */
export interface LoopHookHost {
  hooks: HookRegistry;
  streamFn: StreamFn;
  sessionId(): string;
  streamOptions(): HarnessStreamOptions;
  /** The system prompt of this request (resolved per request; see `HarnessOperations`). */
  systemPrompt(): string | Promise<string>;
  /**
   * A hook failed: the run ends at once (the agent's `FAIL`) — unanswered calls get the error as their
   * result, and the run's last message is an assistant error message carrying it (persisted).
   */
  failRun(error: AgentHarnessError): void;
}

export type LoopCallbacks = Required<
  Pick<AgentLoopConfig, "streamFn" | "transformContext" | "beforeToolCall" | "afterToolCall">
>;

/**
 * The Agent callbacks through which the harness runs its hooks: `context` (transformContext),
 * `tool_call` (beforeToolCall), `tool_result` (afterToolCall), and per request
 * `before_provider_request` (stream options), `before_provider_payload` (`onPayload`) and
 * `after_provider_response` (`onResponse`). The harness installs `transformContext`,
 * `beforeToolCall` and `afterToolCall` for a run only when their hook has a handler at the run's
 * start (the Agent reads its options per run); `onPayload`/`onResponse` are set per request the same way.
 */
export function createLoopCallbacks(host: LoopHookHost): LoopCallbacks {
  const { hooks } = host;
  const failing = <T>(error: unknown): T => {
    host.failRun(error as AgentHarnessError);
    throw error;
  };

  /** The request options: the harness's stream options, the loop's, the session id and the provider hooks. */
  const requestOptions = (streamOptions: HarnessStreamOptions, options: StreamOptions): StreamOptions => {
    const request: StreamOptions = { ...streamOptions, ...options, sessionId: host.sessionId() };
    if (hooks.has("before_provider_payload")) {
      request.onPayload = (payload, payloadModel) =>
        hooks.run(
          "before_provider_payload",
          payload,
          (current) => ({ type: "before_provider_payload", model: payloadModel, payload: current }),
          (current, result) => ({ state: "payload" in result ? result.payload : current }),
          options.signal,
        );
    }
    if (hooks.has("after_provider_response")) {
      request.onResponse = async (response, responseModel) => {
        await hooks.run(
          "after_provider_response",
          undefined,
          () => ({ type: "after_provider_response", model: responseModel, ...response }),
          (state) => ({ state }),
          options.signal,
        );
      };
    }
    return request;
  };

  const patchedStreamOptions = (model: Model, signal: AbortSignal | undefined) =>
    hooks.run(
      "before_provider_request",
      host.streamOptions(),
      (current) => ({
        type: "before_provider_request",
        model,
        sessionId: host.sessionId(),
        streamOptions: { ...current },
      }),
      (current, result) => ({
        state: result.streamOptions ? applyStreamOptionsPatch(current, result.streamOptions) : current,
      }),
      signal,
    );

  /** The asynchronous path: an async system prompt function and/or `before_provider_request` handlers. */
  const streamAsync = async (
    model: Model,
    context: LlmContext,
    options: StreamOptions,
    systemPrompt: string | Promise<string>,
  ) => {
    const requestContext: LlmContext = { ...context, systemPrompt: await systemPrompt };
    const streamOptions = hooks.has("before_provider_request")
      ? await patchedStreamOptions(model, options.signal)
      : host.streamOptions();
    return host.streamFn(model, requestContext, requestOptions(streamOptions, options));
  };

  // Synchronous unless the system prompt or a `before_provider_request` handler is asynchronous: a
  // plain turn costs no extra promise.
  const streamFn: StreamFn = (model: Model, context: LlmContext, options: StreamOptions) => {
    const systemPrompt = host.systemPrompt();
    if (typeof systemPrompt !== "string" || hooks.has("before_provider_request")) {
      return streamAsync(model, context, options, systemPrompt);
    }
    const request = requestOptions(host.streamOptions(), options);
    return host.streamFn(model, { ...context, systemPrompt }, request);
  };

  const transformContext = async (messages: AgentMessage[], signal: AbortSignal) => {
    if (!hooks.has("context")) return messages;
    return hooks.run(
      "context",
      messages,
      (current) => ({ type: "context", messages: [...current] }),
      (current, result) => ({ state: result.messages ?? current }),
      signal,
    );
  };

  const beforeToolCall: LoopCallbacks["beforeToolCall"] = async (ctx, signal) => {
    if (!hooks.has("tool_call")) return undefined;
    const event = {
      type: "tool_call" as const,
      toolCallId: ctx.toolCall.id,
      toolName: ctx.toolCall.name,
      input: ctx.args,
    };
    return hooks
      .run(
        "tool_call",
        {} as { block?: boolean; reason?: string },
        () => event,
        (_, result) => ({ state: result, stop: result.block === true }),
        signal,
      )
      .catch(failing<undefined>);
  };

  const afterToolCall: LoopCallbacks["afterToolCall"] = async (ctx, signal) => {
    if (!hooks.has("tool_result")) return undefined;
    const initial: AfterToolCallResult = {
      content: ctx.result.content,
      details: ctx.result.details,
      isError: ctx.isError,
    };
    return hooks
      .run(
        "tool_result",
        initial,
        (current) => ({
          type: "tool_result",
          toolCallId: ctx.toolCall.id,
          toolName: ctx.toolCall.name,
          input: ctx.args,
          content: current.content ?? [],
          details: current.details,
          isError: current.isError ?? false,
        }),
        (current, result) => ({ state: { ...current, ...definedFields(result) } }),
        signal,
      )
      .catch(failing<AfterToolCallResult>);
  };

  return { streamFn, transformContext, beforeToolCall, afterToolCall };
}

/**
 * Runs `before_agent_start` as a pipeline: messages returned by the handlers are collected in order
 * (each handler sees those of the handlers before it); a returned `systemPrompt` replaces the prompt
 * for the run's first request and is what the next handler sees.
 */
export function runBeforeAgentStart(
  hooks: HookRegistry,
  start: {
    prompt: string;
    images: ImageContent[];
    systemPrompt: string;
    resources: HarnessResources;
    signal: AbortSignal;
  },
): Promise<{ messages: AgentMessage[]; systemPrompt: string }> {
  return hooks.run(
    "before_agent_start",
    { messages: [] as AgentMessage[], systemPrompt: start.systemPrompt },
    (state) => ({
      type: "before_agent_start",
      prompt: start.prompt,
      images: start.images,
      systemPrompt: state.systemPrompt,
      resources: start.resources,
      messages: [...state.messages],
    }),
    (state, result) => ({
      state: {
        messages: [...state.messages, ...(result.messages ?? [])],
        systemPrompt: result.systemPrompt ?? state.systemPrompt,
      },
    }),
    start.signal,
  );
}

function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
