import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage } from "../types/messages.js";
import type { AgUiEvent } from "./ag-ui-events.js";
import { CUSTOM_EVENT } from "./shared-state.js";

/** CUSTOM events naming a waiting call: a sub-agent's carry its `agentPath`, which answers need. */
const WAITING_CALL_EVENTS = new Set<string>([CUSTOM_EVENT.approvalRequest, CUSTOM_EVENT.clientRequest]);

/** What a sub-agent's stream needs of the translator of the agent above it. */
export interface AgentStreamTranslator {
  /** The AG-UI events of one of this agent's own events (without `agentPath`). */
  translate(event: AgentEvent): AgUiEvent[];
  /** Ends every text, reasoning and tool-call block still open. */
  closeOpenBlocks(): AgUiEvent[];
  /** The tool name of one of this agent's calls, once it started. */
  callName(toolCallId: string): string | undefined;
  /** The id of this agent's latest assistant message (the one whose calls run now). */
  readonly replyMessageId: string;
}

/** How sub-agents still open when a run's stream ends are finished. */
export type OpenSubAgentEnd = { type: "suspended" } | { type: "error"; message: string; code: string };

/**
 * The AG-UI streams of the sub-agents of one agent: a descendant's events (those with `agentPath`)
 * never join the root's `TEXT_MESSAGE_*`/`TOOL_CALL_*` stream. Each sub-agent run is an AG-UI
 * subagent: `SUBAGENT_STARTED` (its `subagentRunId` is its `agentPath` joined with `/`, `name` its tool,
 * `parentToolCallId` the call that runs it, `parentSubagentRunId` the sub-agent above), then its own
 * messages translated as the root's are, each event carrying its `subagentRunId` (message ids
 * `<subagentRunId>:m<index>`; a waiting call's CUSTOM event also names its `agentPath`), then
 * `SUBAGENT_FINISHED` — or `SUBAGENT_ERROR` for a run that failed or was aborted.
 *
 * Contract: synchronous, never throws; events of a sub-agent that never started here are dropped.
 */
export class SubAgentStreams {
  readonly #root: AgentStreamTranslator;
  readonly #newTranslator: (messageIdPrefix: string) => AgentStreamTranslator;
  /** Open sub-agents by `subagentRunId`, in start order. */
  readonly #open = new Map<string, AgentStreamTranslator>();

  constructor(
    root: AgentStreamTranslator,
    newTranslator: (messageIdPrefix: string) => AgentStreamTranslator,
  ) {
    this.#root = root;
    this.#newTranslator = newTranslator;
  }

  /** The AG-UI events of a descendant's event (`agentPath` non-empty). */
  translate(event: AgentEvent, agentPath: readonly string[]): AgUiEvent[] {
    const subagentRunId = subagentRunIdOf(agentPath);
    const { agentPath: _path, ...own } = event;
    if (event.type === "agent_start") return this.#start(agentPath, subagentRunId);
    const stream = this.#open.get(subagentRunId);
    if (!stream) return [];
    if (event.type === "agent_end") {
      return [
        ...this.#closeBelow(subagentRunId, { type: "suspended" }),
        ...attribute(stream.closeOpenBlocks(), subagentRunId),
        ...this.#finish(subagentRunId, endOf(event)),
      ];
    }
    return attribute(stream.translate(own as AgentEvent), subagentRunId).map((translated) =>
      translated.type === "CUSTOM" && WAITING_CALL_EVENTS.has(translated.name)
        ? { ...translated, value: { ...(translated.value as object), agentPath: [...agentPath] } }
        : translated,
    );
  }

  /** Finishes every sub-agent still open (deepest first) before the run's stream ends. */
  closeAll(end: OpenSubAgentEnd): AgUiEvent[] {
    const events: AgUiEvent[] = [];
    for (const subagentRunId of [...this.#open.keys()].reverse()) {
      const stream = this.#open.get(subagentRunId);
      if (!stream) continue;
      events.push(...attribute(stream.closeOpenBlocks(), subagentRunId), ...this.#finish(subagentRunId, end));
    }
    return events;
  }

  #start(agentPath: readonly string[], subagentRunId: string): AgUiEvent[] {
    if (this.#open.has(subagentRunId)) return [];
    const parentPath = agentPath.slice(0, -1);
    const parentRunId = parentPath.length > 0 ? subagentRunIdOf(parentPath) : undefined;
    const parent = parentRunId === undefined ? this.#root : this.#open.get(parentRunId);
    if (!parent) return [];
    const toolCallId = agentPath.at(-1)!;
    this.#open.set(subagentRunId, this.#newTranslator(`${subagentRunId}:m`));
    return [
      {
        type: "SUBAGENT_STARTED",
        subagentRunId,
        name: parent.callName(toolCallId) ?? toolCallId,
        parentToolCallId: toolCallId,
        ...(parent.replyMessageId ? { parentMessageId: parent.replyMessageId } : {}),
        ...(parentRunId !== undefined ? { parentSubagentRunId: parentRunId } : {}),
      },
    ];
  }

  #closeBelow(subagentRunId: string, end: OpenSubAgentEnd): AgUiEvent[] {
    const events: AgUiEvent[] = [];
    for (const other of [...this.#open.keys()].reverse()) {
      if (!other.startsWith(`${subagentRunId}/`)) continue;
      events.push(...attribute(this.#open.get(other)!.closeOpenBlocks(), other), ...this.#finish(other, end));
    }
    return events;
  }

  #finish(subagentRunId: string, end: OpenSubAgentEnd | { type: "success" }): AgUiEvent[] {
    this.#open.delete(subagentRunId);
    if (end.type === "error")
      return [{ type: "SUBAGENT_ERROR", subagentRunId, message: end.message, code: end.code }];
    return [{ type: "SUBAGENT_FINISHED", subagentRunId, outcome: { type: end.type } }];
  }
}

/**
 * The AG-UI `subagentRunId` of the sub-agent at `agentPath`: its tool call ids joined with `/`
 * (unique per invocation, as tool call ids are; the same again when a restored run goes on).
 *
 * Contract: pure; `agentPath` is non-empty.
 *
 * ```ts
 * subagentRunIdOf(["call_1", "call_7"]); // "call_1/call_7"
 * ```
 */
export function subagentRunIdOf(agentPath: readonly string[]): string {
  return agentPath.join("/");
}

function attribute(events: AgUiEvent[], subagentRunId: string): AgUiEvent[] {
  return events.map((event) => ({ ...event, subagentRunId }));
}

function endOf(event: Extract<AgentEvent, { type: "agent_end" }>): OpenSubAgentEnd | { type: "success" } {
  if (event.stopReason !== "error" && event.stopReason !== "aborted") return { type: "success" };
  const failed = event.messages.findLast(
    (message: AgentMessage) => (message as { role?: string }).role === "assistant",
  ) as AssistantMessage | undefined;
  return {
    type: "error",
    code: event.stopReason,
    message: failed?.errorMessage ?? `The sub-agent's run ended with stopReason "${event.stopReason}"`,
  };
}
