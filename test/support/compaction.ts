import type {
  AgentMessage,
  AssistantMessage,
  LlmContext,
  Model,
  SessionEntry,
  StopReason,
  ToolCall,
  ToolResultMessage,
  Usage,
} from "../../src/index.js";
import { emptyUsage } from "../../src/index.js";
import type { ScriptedReply } from "../../src/testing.js";

/** A model for summary requests. */
export const summaryModel: Model = {
  id: "summariser",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 8_192,
};

let clock = 1_000_000;
/** Strictly increasing timestamps, so "older than the compaction" is well defined. */
export function nextTimestamp(): number {
  clock += 1000;
  return clock;
}

export function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: nextTimestamp() };
}

export function usageOf(totalTokens: number): Usage {
  return { ...emptyUsage(), input: totalTokens, totalTokens };
}

export function assistant(
  text: string,
  options: { toolCalls?: Omit<ToolCall, "type">[]; usage?: number; stopReason?: StopReason } = {},
): AssistantMessage {
  const calls: ToolCall[] = (options.toolCalls ?? []).map((call) => ({ type: "toolCall", ...call }));
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text }] : []), ...calls],
    api: "scripted",
    provider: "scripted",
    model: "m",
    usage: usageOf(options.usage ?? 0),
    stopReason: options.stopReason ?? (calls.length > 0 ? "toolUse" : "stop"),
    timestamp: nextTimestamp(),
  };
}

export function toolResult(toolCallId: string, text: string, toolName = "read"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: nextTimestamp(),
  };
}

type Draft = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, "id" | "parentId" | "timestamp"> & { id?: string }
    : never
  : never;

/** A linear path (root → leaf) of entries with ids `e1`, `e2`, … (or the draft's own id). */
export function pathOf(drafts: (Draft | AgentMessage)[]): SessionEntry[] {
  const entries: SessionEntry[] = [];
  drafts.forEach((draft, i) => {
    const body = "role" in draft ? { type: "message" as const, message: draft } : draft;
    entries.push({
      id: `e${i + 1}`,
      ...body,
      parentId: entries[i - 1]?.id ?? null,
      timestamp: new Date(nextTimestamp()).toISOString(),
    } as SessionEntry);
  });
  return entries;
}

/** The user-message text of a summary request. */
export function requestText(context: { messages: AgentMessage[] }): string {
  const message = context.messages[0];
  if (message?.role !== "user") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** The `MARK-…` markers in a text, in order of appearance, without duplicates. */
export function markersIn(text: string): string[] {
  return [...new Set(text.match(/MARK-[\w-]+/g) ?? [])];
}

/**
 * A summariser script: answers a summary request with a summary naming what it was sent — the
 * markers of the `<conversation>` block, whether a `<previous-summary>` came along (and its markers),
 * and the additional focus — so tests can prove what each request contained.
 */
export function summariser(name = "summary"): (context: LlmContext) => ScriptedReply {
  return (context) => {
    const text = requestText(context);
    const conversation = /<conversation>\n([\s\S]*?)\n<\/conversation>/.exec(text)?.[1] ?? "";
    const previous = /<previous-summary>\n([\s\S]*?)\n<\/previous-summary>/.exec(text)?.[1];
    const focus = /Additional focus: (.*)$/.exec(text)?.[1];
    const lines = [`## Goal`, `${name} of ${markersIn(conversation).join(" ") || "(no markers)"}`];
    if (previous !== undefined) lines.push(`updated from ${markersIn(previous).join(" ") || "(no markers)"}`);
    if (focus !== undefined) lines.push(`focus: ${focus}`);
    return { text: lines.join("\n"), usage: { input: 100, output: 20 } };
  };
}
