import { from, type Subscription } from "rxjs";
import { errorText } from "../../types/error-text.js";
import type {
  AgentMessage,
  AssistantMessageEvent,
  Model,
  StreamFn,
  StreamOptions,
  ThinkingLevel,
  Usage,
} from "../../types/index.js";
import { CompactionError } from "./compaction-error.js";
import {
  SUMMARIZATION_SYSTEM_PROMPT,
  SUMMARY_PROMPT,
  summaryRequestText,
  UPDATE_SUMMARY_PROMPT,
} from "./prompts.js";
import { serializeConversation } from "./serialize.js";

/** How to reach the summarising model. */
export interface SummaryModelOptions {
  model: Model;
  streamFn: StreamFn;
  /** Aborting rejects at once with `CompactionError("aborted")`, even if the StreamFn ignores it. */
  signal?: AbortSignal;
  /** Thinking level; sent only to reasoning models and only when not "off". */
  reasoning?: ThinkingLevel;
  /** Extra stream options (API key, headers, …); `signal`, `maxTokens` and `reasoning` are set here. */
  streamOptions?: StreamOptions;
}

/** A summary request: options plus the output cap. */
export interface SummaryRequestOptions extends SummaryModelOptions {
  /** Output token cap, clamped to the model's `maxTokens`. */
  maxTokens: number;
}

/** A summary the model wrote, and what it cost. */
export interface GeneratedSummary {
  summary: string;
  usage: Usage;
}

/**
 * Sends one summary request (system prompt + one user message, no tools) and resolves with the text
 * of the reply. Accepts every StreamFn shape (Observable or AsyncIterable, or a Promise of either).
 *
 * Errors (all `CompactionError`): `aborted` when the signal aborts or the stream ends with an
 * aborted error; `summarization_failed` when the StreamFn throws, the stream errors, sends an `error`
 * event, ends without a final event, or the reply has no text.
 */
export function requestSummary(
  userText: string,
  options: SummaryRequestOptions,
  systemPrompt = SUMMARIZATION_SYSTEM_PROMPT,
): Promise<GeneratedSummary> {
  const { model, signal } = options;
  return new Promise<GeneratedSummary>((resolve, reject) => {
    let settled = false;
    let subscription: Subscription | undefined;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      subscription?.unsubscribe();
      outcome();
    };
    const fail = (code: "aborted" | "summarization_failed", message: string, cause?: unknown) =>
      settle(() => reject(new CompactionError(code, message, cause === undefined ? undefined : { cause })));
    const onAbort = () => fail("aborted", "Summarization was aborted.");
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });

    const onEvent = (event: AssistantMessageEvent) => {
      if (event?.type === "done") {
        const text = (event.message?.content ?? [])
          .filter((block) => block.type === "text")
          .map((block) => block.text)
          .join("")
          .trim();
        if (!text) return fail("summarization_failed", "Summarization failed: the model returned no text.");
        return settle(() => resolve({ summary: text, usage: event.message.usage }));
      }
      if (event?.type === "error") {
        if (event.reason === "aborted" || signal?.aborted) return onAbort();
        const reason = event.error?.errorMessage ?? "the model reported an error";
        return fail("summarization_failed", `Summarization failed: ${reason}`);
      }
    };

    (async () => {
      const source = await options.streamFn(
        model,
        {
          systemPrompt,
          messages: [{ role: "user", content: [{ type: "text", text: userText }], timestamp: Date.now() }],
          tools: [],
        },
        summaryStreamOptions(options),
      );
      if (settled) return;
      subscription = from(source).subscribe({
        next: onEvent,
        error: (error: unknown) =>
          fail("summarization_failed", `Summarization failed: ${errorText(error)}`, error),
        complete: () =>
          fail("summarization_failed", "Summarization failed: the stream ended without a reply."),
      });
      if (settled) subscription.unsubscribe();
    })().catch((error: unknown) =>
      fail("summarization_failed", `Summarization failed: ${errorText(error)}`, error),
    );
  });
}

/** The options of a summary request: caller extras, then signal, clamped maxTokens and reasoning. */
function summaryStreamOptions(options: SummaryRequestOptions): StreamOptions {
  const { model, reasoning, signal } = options;
  const streamOptions: StreamOptions = {
    ...options.streamOptions,
    maxTokens: clampMaxTokens(options.maxTokens, model),
  };
  delete streamOptions.reasoning;
  delete streamOptions.signal;
  if (signal) streamOptions.signal = signal;
  if (model.reasoning && reasoning !== undefined && reasoning !== "off") streamOptions.reasoning = reasoning;
  return streamOptions;
}

/** `maxTokens` floored, at least 1, and at most the model's output cap (when it has one). */
export function clampMaxTokens(maxTokens: number, model: Model): number {
  const cap = model.maxTokens > 0 ? Math.min(maxTokens, model.maxTokens) : maxTokens;
  return Math.max(1, Math.floor(cap));
}

/** Options of {@link generateSummary}. */
export interface GenerateSummaryOptions extends SummaryRequestOptions {
  /** Appended to the instruction as "Additional focus: …". */
  customInstructions?: string;
  /** The summary to update (switches to the update prompt with a `<previous-summary>` block). */
  previousSummary?: string;
}

/**
 * Summarises messages with the structured checkpoint prompt (Goal, Constraints & Preferences,
 * Progress, Key Decisions, Next Steps, Critical Context), or updates `previousSummary` with them.
 * Rejects with `CompactionError` (`aborted` | `summarization_failed`), see {@link requestSummary}.
 *
 * ```ts
 * const { summary } = await generateSummary(session.buildContext().messages, { model, streamFn, maxTokens: 13_000 });
 * ```
 */
export function generateSummary(
  messages: readonly AgentMessage[],
  options: GenerateSummaryOptions,
): Promise<GeneratedSummary> {
  const text = summaryRequestText({
    transcript: serializeConversation(messages),
    instruction: options.previousSummary === undefined ? SUMMARY_PROMPT : UPDATE_SUMMARY_PROMPT,
    ...(options.previousSummary !== undefined && { previousSummary: options.previousSummary }),
    ...(options.customInstructions !== undefined && { customInstructions: options.customInstructions }),
  });
  return requestSummary(text, options);
}
