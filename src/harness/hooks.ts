import type { BranchSummaryEntry, CompactionEntry, SessionEntry } from "../storage/entries.js";
import type { AgentEvent } from "../types/events.js";
import type { MaybePromise } from "../types/loop.js";
import type { AgentMessage, ImageContent, ToolResultMessage } from "../types/messages.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { StreamOptions } from "../types/stream.js";
import type { BranchSummaryResult, CompactionResult } from "./compaction/port.js";
import { hookError } from "./errors.js";
import type { HarnessResources } from "./resources/resource-set.js";

/** Request options the harness passes to every StreamFn call (never persisted). */
export type HarnessStreamOptions = Omit<
  StreamOptions,
  "signal" | "reasoning" | "sessionId" | "onPayload" | "onResponse"
>;

/**
 * A change to the stream options: a key present replaces the value (even with `undefined`);
 * `headers` and `metadata` merge per key, a key set to `undefined` removes it, and an explicit
 * `headers: undefined` / `metadata: undefined` clears the whole map.
 */
export type StreamOptionsPatch = {
  [K in keyof HarnessStreamOptions]?: K extends "headers"
    ? Record<string, string | undefined>
    : K extends "metadata"
      ? Record<string, unknown>
      : HarnessStreamOptions[K];
};

/** What `navigateTree` is about to do; passed to `session_before_tree`. */
export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  /** Entries of the branch being left (chronological), empty without a compaction port. */
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions?: string;
  label?: string;
}

/** Why a compaction runs. */
import type { CompactionReason } from "../types/harness-messages.js";

export type { CompactionReason };

/** Hook events (handlers may transform) and their results; see `AgentHarness.on`. */
export interface HarnessHookMap {
  before_agent_start: {
    event: {
      type: "before_agent_start";
      prompt: string;
      images: ImageContent[];
      systemPrompt: string;
      resources: HarnessResources;
      /** Messages added by earlier handlers. */
      messages: AgentMessage[];
    };
    result: { messages?: AgentMessage[]; systemPrompt?: string };
  };
  context: { event: { type: "context"; messages: AgentMessage[] }; result: { messages?: AgentMessage[] } };
  before_provider_request: {
    event: {
      type: "before_provider_request";
      model: Model;
      sessionId: string;
      streamOptions: HarnessStreamOptions;
    };
    result: { streamOptions?: StreamOptionsPatch };
  };
  before_provider_payload: {
    event: { type: "before_provider_payload"; model: Model; payload: unknown };
    result: { payload?: unknown };
  };
  after_provider_response: {
    event: { type: "after_provider_response"; model: Model; status: number; headers: Record<string, string> };
    result: undefined;
  };
  tool_call: {
    /** `agentPath`: set for a sub-agent's call (the tool call ids from the root agent down to it). */
    event: {
      type: "tool_call";
      toolCallId: string;
      toolName: string;
      input: unknown;
      agentPath?: readonly string[];
    };
    result: { block?: boolean; reason?: string };
  };
  tool_result: {
    event: {
      type: "tool_result";
      toolCallId: string;
      toolName: string;
      input: unknown;
      content: ToolResultMessage["content"];
      details: unknown;
      isError: boolean;
      agentPath?: readonly string[];
    };
    result: {
      content?: ToolResultMessage["content"];
      details?: unknown;
      isError?: boolean;
      terminate?: boolean;
    };
  };
  session_before_compact: {
    event: {
      type: "session_before_compact";
      preparation: unknown;
      branchEntries: SessionEntry[];
      customInstructions: string | undefined;
      reason: CompactionReason;
    };
    result: { cancel?: boolean; compaction?: CompactionResult };
  };
  session_before_tree: {
    event: { type: "session_before_tree"; preparation: TreePreparation };
    result: { cancel?: boolean; summary?: BranchSummaryResult; label?: string };
  };
}

/** Events the harness announces (on `events$` and to `on(type)` handlers); handlers only observe. */
export type HarnessOwnEvent =
  | { type: "model_update"; model: Model; previousModel: Model }
  | { type: "thinking_level_update"; level: ThinkingLevel; previousLevel: ThinkingLevel }
  | {
      type: "tools_update";
      toolNames: string[];
      previousToolNames: string[];
      activeToolNames: string[];
      previousActiveToolNames: string[];
    }
  | { type: "resources_update"; resources: HarnessResources; previousResources: HarnessResources }
  | { type: "queue_update"; steer: AgentMessage[]; followUp: AgentMessage[]; nextTurn: AgentMessage[] }
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; errorMessage: string }
  | { type: "abort"; clearedSteer: AgentMessage[]; clearedFollowUp: AgentMessage[] }
  | { type: "session_compact"; compactionEntry: CompactionEntry; fromHook: boolean; reason: CompactionReason }
  | { type: "compaction_failed"; reason: CompactionReason; errorMessage: string }
  | {
      type: "session_tree";
      newLeafId: string | null;
      oldLeafId: string | null;
      summaryEntry?: BranchSummaryEntry;
      fromHook: boolean;
    };

/** Everything on `AgentHarness.events$`: the Agent's events plus the harness's own. */
export type HarnessEvent = AgentEvent | HarnessOwnEvent;

export type HookName = keyof HarnessHookMap;

/** Every name `AgentHarness.on` accepts: the hooks and the observed events. */
export const HARNESS_HANDLER_NAMES: ReadonlySet<string> = new Set<HookName | HarnessOwnEvent["type"]>([
  "before_agent_start",
  "context",
  "before_provider_request",
  "before_provider_payload",
  "after_provider_response",
  "tool_call",
  "tool_result",
  "session_before_compact",
  "session_before_tree",
  "model_update",
  "thinking_level_update",
  "tools_update",
  "resources_update",
  "queue_update",
  "retry",
  "abort",
  "session_compact",
  "compaction_failed",
  "session_tree",
]);
export type ObservedEventName = HarnessOwnEvent["type"];

/** What a handler of hook `K` may return: its result, or nothing to leave the value unchanged. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler may return nothing (`void`, `Promise<void>`)
export type HookReturn<K extends HookName> = HarnessHookMap[K]["result"] | undefined | void;

/** A handler of a hook (may return a result) or of an observed event (its result is ignored). */
export type HarnessHandler<K extends HookName | ObservedEventName> = K extends HookName
  ? (event: HarnessHookMap[K]["event"], signal: AbortSignal | undefined) => MaybePromise<HookReturn<K>>
  : (event: Extract<HarnessOwnEvent, { type: K }>) => MaybePromise<void>;

type AnyHandler = (event: never, signal?: AbortSignal) => unknown;
type HookEvent<K extends HookName> = HarnessHookMap[K]["event"];
type HookResult<K extends HookName> = HarnessHookMap[K]["result"] | undefined;

/**
 * The registered handlers and the combination rule (docs/harness.md): handlers run in registration
 * order; transforming hooks are pipelines (each handler sees the previous handler's output);
 * `tool_call` stops at the first block; `session_before_*` stop at the first handler that cancels or
 * supplies a result. A throwing hook handler fails that step with `AgentHarnessError("hook")`.
 * Observed-event handlers cannot fail anything: what they throw goes to `onError`.
 */
export class HookRegistry {
  readonly #handlers = new Map<string, AnyHandler[]>();
  readonly #onError: (error: unknown, eventType: string) => void;

  constructor(onError: (error: unknown, eventType: string) => void) {
    this.#onError = onError;
  }

  on(name: string, handler: AnyHandler): () => void {
    const list = this.#handlers.get(name) ?? [];
    this.#handlers.set(name, [...list, handler]);
    return () => {
      const current = this.#handlers.get(name) ?? [];
      this.#handlers.set(
        name,
        current.filter((h) => h !== handler),
      );
    };
  }

  has(name: HookName | ObservedEventName): boolean {
    return (this.#handlers.get(name)?.length ?? 0) > 0;
  }

  /**
   * Runs the handlers of a hook in order. `next` folds each result into the state the following
   * handler sees and says whether to stop.
   */
  async run<K extends HookName, TState>(
    name: K,
    state: TState,
    toEvent: (state: TState) => HookEvent<K>,
    next: (state: TState, result: NonNullable<HookResult<K>>) => { state: TState; stop?: boolean },
    signal?: AbortSignal,
  ): Promise<TState> {
    for (const handler of this.#handlers.get(name) ?? []) {
      let result: HookResult<K>;
      try {
        result = (await (handler as (e: HookEvent<K>, s?: AbortSignal) => unknown)(toEvent(state), signal)) as
          | HookResult<K>
          | undefined;
      } catch (error) {
        throw hookError(name, error);
      }
      if (result === undefined || result === null) continue;
      const step = next(state, result as NonNullable<HookResult<K>>);
      state = step.state;
      if (step.stop) break;
    }
    return state;
  }

  /** Calls the handlers of an observed event; throws and rejections are reported, never propagated. */
  notify(event: HarnessOwnEvent): void {
    for (const handler of this.#handlers.get(event.type) ?? []) {
      try {
        const result = (handler as (e: HarnessOwnEvent) => unknown)(event);
        if (result instanceof Promise) result.catch((error) => this.#onError(error, event.type));
      } catch (error) {
        this.#onError(error, event.type);
      }
    }
  }
}

/** Applies a stream options patch (see {@link StreamOptionsPatch}); returns a new object. */
export function applyStreamOptionsPatch(
  base: HarnessStreamOptions,
  patch: StreamOptionsPatch,
): HarnessStreamOptions {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if ((key === "headers" || key === "metadata") && value !== undefined) {
      const map: Record<string, unknown> = { ...(base[key] ?? {}) };
      for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
        if (entry === undefined) delete map[name];
        else map[name] = entry;
      }
      merged[key] = Object.keys(map).length > 0 ? map : undefined;
    } else {
      merged[key] = value;
    }
  }
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return merged as HarnessStreamOptions;
}
