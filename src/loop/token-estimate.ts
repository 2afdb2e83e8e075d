import type { BashExecutionMessage } from "../types/harness-messages.js";
import type { AgentMessage, AssistantMessage, ImageContent, TextContent, Usage } from "../types/index.js";
import { grewFrom } from "./transcript-growth.js";

/** Characters per token of the estimate (a conservative average for English text and code). */
const CHARS_PER_TOKEN = 4;
/** What an image counts for, in characters (≈ 1,200 tokens). */
const IMAGE_CHARS = 4800;

/** True for `bashExecution` messages (pi's `!command`, found in real pi sessions): role, command and output. */
export function isBashExecution(message: unknown): message is BashExecutionMessage {
  if (typeof message !== "object" || message === null) return false;
  const candidate = message as Partial<BashExecutionMessage>;
  return (
    candidate.role === "bashExecution" &&
    typeof candidate.command === "string" &&
    typeof candidate.output === "string"
  );
}

function contentChars(content: string | readonly (TextContent | ImageContent)[]): number {
  if (typeof content === "string") return content.length;
  let chars = 0;
  for (const block of content) chars += block.type === "text" ? block.text.length : IMAGE_CHARS;
  return chars;
}

/**
 * Estimated tokens of one message: characters / 4, rounded up. Counts user and custom content, an
 * assistant's text, thinking, tool names and JSON arguments, tool-result content, summaries and
 * bash executions; an image counts as ~1,200 tokens. Unknown roles count 0.
 */
export function estimateTokens(message: AgentMessage): number {
  let chars = 0;
  switch (message.role) {
    case "user":
    case "custom":
    case "toolResult":
      chars = contentChars(message.content);
      break;
    case "assistant":
      for (const block of message.content) {
        if (block.type === "text") chars += block.text.length;
        else if (block.type === "thinking") chars += block.thinking.length;
        else chars += block.name.length + JSON.stringify(block.arguments ?? {}).length;
      }
      break;
    case "compactionSummary":
    case "branchSummary":
      chars = message.summary.length;
      break;
    default: {
      const other: unknown = message;
      if (isBashExecution(other)) chars = other.command.length + other.output.length;
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Context size a provider reported for one request: `totalTokens`, or the sum of its parts. */
export function calculateContextTokens(usage: Usage): number {
  return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** The latest trustworthy usage of a transcript and where it is. */
export interface LastUsage {
  usage: Usage;
  /** Index of the assistant message that reported it. */
  index: number;
}

/**
 * The usage of the latest assistant reply that measured the current context: replies that failed
 * (`error`), were aborted, or report zero tokens are skipped — they did not see (or did not report)
 * the whole context. Replies older than the latest compaction summary are skipped too: they measured
 * the context before the compaction, which is far larger than what remains (the over-estimate of
 * pi#9337 that re-triggered compaction right after one finished). "Older" compares timestamps, since
 * a built context lists the kept messages after the summary.
 */
export function lastUsage(messages: readonly AgentMessage[]): LastUsage | undefined {
  let compactedAt = Number.NEGATIVE_INFINITY;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "compactionSummary") {
      compactedAt = message.timestamp;
      break;
    }
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "compactionSummary") return undefined;
    if (message.role !== "assistant" || !hasValidUsage(message)) continue;
    if (message.timestamp < compactedAt) continue;
    return { usage: message.usage, index: i };
  }
  return undefined;
}

function hasValidUsage(message: AssistantMessage): boolean {
  if (message.stopReason === "error" || message.stopReason === "aborted") return false;
  return message.usage !== undefined && calculateContextTokens(message.usage) > 0;
}

/** The parts of a context-size estimate. */
export interface ContextTokenEstimate {
  /** `usageTokens + trailingTokens`. */
  tokens: number;
  /** Context size reported by the last valid usage (0 when there is none). */
  usageTokens: number;
  /** Estimated tokens of the messages after that usage (of all messages when there is none). */
  trailingTokens: number;
  /** Index of the message whose usage was used, or -1. */
  lastUsageIndex: number;
}

/**
 * Estimated context size of a transcript: the last valid usage (see {@link lastUsage}) plus
 * characters / 4 for the messages after it; without a valid usage, characters / 4 for all of them.
 *
 * ```ts
 * import { DEFAULT_COMPACTION_SETTINGS, shouldCompact } from "agentchart/compaction";
 * const { tokens } = estimateContextTokens(session.buildContext().messages);
 * if (shouldCompact(tokens, model.contextWindow, DEFAULT_COMPACTION_SETTINGS)) void harness.compact();
 * ```
 */
export function estimateContextTokens(messages: readonly AgentMessage[]): ContextTokenEstimate {
  const last = lastUsage(messages);
  const usageTokens = last ? calculateContextTokens(last.usage) : 0;
  const from = last ? last.index + 1 : 0;
  let trailingTokens = 0;
  for (let i = from; i < messages.length; i++) trailingTokens += estimateTokens(messages[i]!);
  return {
    tokens: usageTokens + trailingTokens,
    usageTokens,
    trailingTokens,
    lastUsageIndex: last?.index ?? -1,
  };
}

/**
 * `estimateContextTokens` for one transcript that grows at its end (an Agent's transcript, which each
 * step replaces with a longer copy): each call counts only the messages appended since the last call,
 * so estimating after every turn costs O(new messages) instead of O(transcript). A transcript not
 * made from the last one by appending (see `grewFrom`), a shorter one, or one whose last counted
 * message changed (an array edited in place) is counted afresh.
 *
 * ```ts
 * const estimate = createContextEstimator();
 * const { tokens } = estimate(agent.state.messages); // after each turn
 * ```
 */
export function createContextEstimator(): (messages: readonly AgentMessage[]) => ContextTokenEstimate {
  let counted: readonly AgentMessage[] | undefined;
  let length = 0;
  /** Estimated tokens of every counted message (the estimate when no usage is valid). */
  let allTokens = 0;
  let usageIndex = -1;
  let usageTokens = 0;
  /** Estimated tokens of the counted messages after `usageIndex`. */
  let trailingTokens = 0;
  let compactedAt = Number.NEGATIVE_INFINITY;
  let tail: AgentMessage | undefined;

  return (messages) => {
    // A shorter transcript has no message at `length - 1`; an empty one left `tail` undefined.
    const grew = counted !== undefined && grewFrom(messages, counted) && messages[length - 1] === tail;
    if (!grew) {
      counted = messages;
      length = 0;
      allTokens = 0;
      usageIndex = -1;
      usageTokens = 0;
      trailingTokens = 0;
      compactedAt = Number.NEGATIVE_INFINITY;
    }
    // The same rules as `lastUsage`, applied message by message in order.
    for (; length < messages.length; length++) {
      const message = messages[length]!;
      const tokens = estimateTokens(message);
      allTokens += tokens;
      if (message.role === "compactionSummary") {
        compactedAt = message.timestamp;
        usageIndex = -1;
        usageTokens = 0;
      } else if (message.role === "assistant" && hasValidUsage(message) && message.timestamp >= compactedAt) {
        usageIndex = length;
        usageTokens = calculateContextTokens(message.usage);
        trailingTokens = 0;
        continue;
      }
      trailingTokens += tokens;
    }
    counted = messages;
    tail = messages[length - 1];
    if (usageIndex < 0) {
      return { tokens: allTokens, usageTokens: 0, trailingTokens: allTokens, lastUsageIndex: -1 };
    }
    return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex: usageIndex };
  };
}
