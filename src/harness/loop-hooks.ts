import type { Session } from "../storage/session.js";
import { definedFields } from "../types/defined-fields.js";
import type { AfterToolCallContext, AfterToolCallResult, AgentCallbacks } from "../types/loop.js";
import type { AgentMessage, ImageContent } from "../types/messages.js";
import type { Model } from "../types/model.js";
import type { LlmContext, StreamFn, StreamOptions } from "../types/stream.js";
import type { AgentHarnessError } from "./errors.js";
import { applyStreamOptionsPatch, type HarnessStreamOptions, type HookRegistry } from "./hooks.js";
import type { HarnessResources } from "./resources/resource-set.js";
import type { HarnessSettings } from "./settings.js";
import { chainedAfterToolCall } from "./sub-agent-tools.js";

/** What one Agent run gets from the harness, set by the turn that starts it. */
export interface LoopRun {
  /** Passed to every tool's `execute` as `context`. */
  toolContext: unknown;
  /**
   * Ends the run at once (the agent's `FAIL`) when a tool hook throws: unanswered calls get the error
   * as their result, and the run's last message is an assistant error message carrying it (persisted).
   */
  fail(error: AgentHarnessError): void;
}

type ToolHook<K extends "beforeToolCall" | "afterToolCall"> = NonNullable<AgentCallbacks[K]>;

/**
 * The Agent callbacks through which the harness runs its hooks: `context` (`transformContext`),
 * `tool_call` (`beforeToolCall`), `tool_result` (`afterToolCall`), and per request
 * `before_provider_request` (stream options), `before_provider_payload` (`onPayload`) and
 * `after_provider_response` (`onResponse`), plus the run's tool context and each request's system
 * prompt. The Agent reads its callbacks when it needs them (the harness hands it these getters): a
 * hook without handlers gives no callback, so a run without such handlers pays nothing for them.
 *
 * The first request of a run uses the system prompt the turn set on the agent at its start (what
 * `before_agent_start` made of it); every later request resolves the prompt again
 * (`HarnessSettings.systemPrompt`), so a prompt function sees the current model, thinking level, tools
 * and resources. A plain turn (string prompt, no `before_provider_request`) costs no extra promise.
 */
export class LoopHooks {
  readonly #session: Session;
  readonly #hooks: HookRegistry;
  readonly #settings: HarnessSettings;
  readonly #streamFn: StreamFn;
  readonly #linkSubAgentResult: ((ctx: AfterToolCallContext) => AfterToolCallResult | undefined) | undefined;
  #run: LoopRun | undefined;
  #firstRequest = false;

  constructor(parts: {
    session: Session;
    hooks: HookRegistry;
    settings: HarnessSettings;
    streamFn: StreamFn;
    /** The link an agent tool's result gets to its sub-agent's session (when sessions are recorded). */
    linkSubAgentResult?: (ctx: AfterToolCallContext) => AfterToolCallResult | undefined;
  }) {
    this.#session = parts.session;
    this.#hooks = parts.hooks;
    this.#settings = parts.settings;
    this.#streamFn = parts.streamFn;
    this.#linkSubAgentResult = parts.linkSubAgentResult;
  }

  /** A run starts: its tool context and failure command; its first request uses the agent's system prompt. */
  startRun(run: LoopRun): void {
    this.#run = run;
    this.#firstRequest = true;
  }

  get toolContext(): unknown {
    return this.#run?.toolContext;
  }
  get transformContext(): AgentCallbacks["transformContext"] {
    return this.#hooks.has("context") ? this.#transformContext : undefined;
  }
  get beforeToolCall(): AgentCallbacks["beforeToolCall"] {
    return this.#hooks.has("tool_call") ? this.#beforeToolCall : undefined;
  }
  /** The `tool_result` hook, then — while an agent tool is active and sessions are recorded — the sub-agent session link. */
  get afterToolCall(): AgentCallbacks["afterToolCall"] {
    const link = this.#linkSubAgentResult;
    const hook = this.toolResultHook;
    if (!link || !this.#settings.activeTools().some((tool) => tool.subAgent !== undefined)) return hook;
    return chainedAfterToolCall(hook, link);
  }
  /** The `tool_result` hook alone (for sub-agents' calls), while it has handlers. */
  get toolResultHook(): AgentCallbacks["afterToolCall"] {
    return this.#hooks.has("tool_result") ? this.#afterToolCall : undefined;
  }

  /** The StreamFn of the agent's requests: the harness's stream options, its provider hooks, the request's system prompt. */
  readonly streamFn: StreamFn = (model, context, options) => {
    const systemPrompt = this.#systemPromptOf(model, context, options);
    if (typeof systemPrompt !== "string" || this.#hooks.has("before_provider_request")) {
      return this.#streamAsync(model, context, options, systemPrompt);
    }
    const request = this.#requestOptions(this.#settings.streamOptions(), options);
    return this.#streamFn(model, { ...context, systemPrompt }, request);
  };

  /**
   * The StreamFn of summary requests and of sub-agents without their own: the harness's stream options
   * (keys, headers), the request's own system prompt, no provider hooks.
   */
  readonly summaryStreamFn: StreamFn = (model, context, options) =>
    this.#streamFn(model, context, { ...this.#settings.streamOptions(), ...options });

  #systemPromptOf(model: Model, context: LlmContext, options: StreamOptions): string | Promise<string> {
    if (this.#firstRequest) {
      this.#firstRequest = false;
      return context.systemPrompt;
    }
    return this.#settings.systemPrompt(this.#session, model, options.reasoning ?? "off");
  }

  /** The asynchronous path: an async system prompt function and/or `before_provider_request` handlers. */
  async #streamAsync(
    model: Model,
    context: LlmContext,
    options: StreamOptions,
    systemPrompt: string | Promise<string>,
  ) {
    const requestContext: LlmContext = { ...context, systemPrompt: await systemPrompt };
    const streamOptions = this.#hooks.has("before_provider_request")
      ? await this.#patchedStreamOptions(model, options.signal)
      : this.#settings.streamOptions();
    return this.#streamFn(model, requestContext, this.#requestOptions(streamOptions, options));
  }

  #patchedStreamOptions(model: Model, signal: AbortSignal | undefined): Promise<HarnessStreamOptions> {
    return this.#hooks.run(
      "before_provider_request",
      this.#settings.streamOptions() as HarnessStreamOptions,
      (current) => ({
        type: "before_provider_request",
        model,
        sessionId: this.#session.id,
        streamOptions: { ...current },
      }),
      (current, result) => ({
        state: result.streamOptions ? applyStreamOptionsPatch(current, result.streamOptions) : current,
      }),
      signal,
    );
  }

  /** The request options: the harness's stream options, the loop's, the session id and the provider hooks. */
  #requestOptions(streamOptions: Readonly<HarnessStreamOptions>, options: StreamOptions): StreamOptions {
    const hooks = this.#hooks;
    const request: StreamOptions = { ...streamOptions, ...options, sessionId: this.#session.id };
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
  }

  readonly #transformContext = (messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]> =>
    this.#hooks.run(
      "context",
      messages,
      (current) => ({ type: "context", messages: [...current] }),
      (current, result) => ({ state: result.messages ?? current }),
      signal,
    );

  // A run keeps the tool hooks it started with: one whose handlers were all removed since does nothing.
  readonly #beforeToolCall: ToolHook<"beforeToolCall"> = (ctx, signal) => {
    if (!this.#hooks.has("tool_call")) return undefined;
    const event = {
      type: "tool_call" as const,
      toolCallId: ctx.toolCall.id,
      toolName: ctx.toolCall.name,
      input: ctx.args,
      ...(ctx.agentPath ? { agentPath: ctx.agentPath } : {}),
    };
    return this.#hooks
      .run(
        "tool_call",
        {} as { block?: boolean; reason?: string },
        () => event,
        (_, result) => ({ state: result, stop: result.block === true }),
        signal,
      )
      .catch((error: unknown) => this.#failRun(error));
  };

  readonly #afterToolCall: ToolHook<"afterToolCall"> = (ctx, signal) => {
    if (!this.#hooks.has("tool_result")) return undefined;
    const initial: AfterToolCallResult = {
      content: ctx.result.content,
      details: ctx.result.details,
      isError: ctx.isError,
    };
    return this.#hooks
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
          ...(ctx.agentPath ? { agentPath: ctx.agentPath } : {}),
        }),
        (current, result) => ({ state: { ...current, ...definedFields(result) } }),
        signal,
      )
      .catch((error: unknown) => this.#failRun(error));
  };

  /** A tool hook threw: the run ends at once; the call's step fails with the error too. */
  #failRun(error: unknown): never {
    this.#run?.fail(error as AgentHarnessError);
    throw error;
  }
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
