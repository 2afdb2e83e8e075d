import type { AgentMessage, AssistantMessage, ThinkingLevel } from "../types/index.js";
import type { SessionContext, SessionEntry } from "./entries.js";

function toMillis(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The message an entry contributes to the model context, if any (message, custom_message, branch_summary). */
export function entryToMessage(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message": {
      const message: AgentMessage = {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        timestamp: toMillis(entry.timestamp),
      };
      if (entry.details !== undefined) message.details = entry.details;
      return message;
    }
    case "branch_summary":
      if (!entry.summary) return undefined;
      return {
        role: "branchSummary",
        summary: entry.summary,
        fromId: entry.fromId,
        timestamp: toMillis(entry.timestamp),
      };
    default:
      return undefined;
  }
}

/**
 * Builds the model context from a path (root → leaf).
 *
 * Messages start at the latest compaction: its summary first, then the entries from its
 * `firstKeptEntryId` up to the compaction, then the entries after it. Settings (model, thinking
 * level, active tools) are read from the whole path, so changes recorded before a compaction are kept.
 */
export function buildSessionContext(path: readonly SessionEntry[]): SessionContext {
  let thinkingLevel: ThinkingLevel = "off";
  let model: SessionContext["model"] = null;
  let activeToolNames: string[] | null = null;
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!;
    switch (entry.type) {
      case "thinking_level_change":
        thinkingLevel = entry.thinkingLevel;
        break;
      case "model_change":
        model = { provider: entry.provider, modelId: entry.modelId };
        break;
      case "active_tools_change":
        activeToolNames = entry.activeToolNames;
        break;
      case "compaction":
        compactionIndex = i;
        break;
      case "message":
        if (entry.message.role === "assistant") {
          const assistant = entry.message as AssistantMessage;
          if (assistant.provider && assistant.model) {
            model = { provider: assistant.provider, modelId: assistant.model };
          }
        }
        break;
    }
  }

  const messages: AgentMessage[] = [];
  const push = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const message = entryToMessage(path[i]!);
      if (message) messages.push(message);
    }
  };
  const compaction = path[compactionIndex];
  if (compaction?.type === "compaction") {
    messages.push({
      role: "compactionSummary",
      summary: compaction.summary,
      tokensBefore: compaction.tokensBefore,
      timestamp: toMillis(compaction.timestamp),
    });
    let keptFrom = compactionIndex;
    for (let i = compactionIndex - 1; i >= 0; i--) {
      if (path[i]!.id === compaction.firstKeptEntryId) {
        keptFrom = i;
        break;
      }
    }
    push(keptFrom, compactionIndex);
    push(compactionIndex + 1, path.length);
  } else {
    push(0, path.length);
  }
  return { messages, model, thinkingLevel, activeToolNames };
}
