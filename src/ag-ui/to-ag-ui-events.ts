import { defer, mergeMap, type Observable, type OperatorFunction, from as observableFrom } from "rxjs";
import type { HarnessEvent } from "../harness/hooks.js";
import { messageText } from "../loop/messages.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../types/messages.js";
import type { AgUiEvent } from "./ag-ui-events.js";
import { CUSTOM_EVENT } from "./shared-state.js";
import { type AgentStreamTranslator, type OpenSubAgentEnd, SubAgentStreams } from "./subagent-streams.js";

/** Options of {@link AgUiTranslator} and {@link toAgUiEvents}. */
export interface AgUiTranslationOptions {
  /** Prefix of the message ids (default `"m"`): message `i` of the transcript gets id `${prefix}${i}`. */
  messageIdPrefix?: string;
  /** Index in the transcript of the first message this run adds (default 0). */
  firstMessageIndex?: number;
  /** How many user messages at the start of the run the client already has (it sent them): not re-sent. */
  skipUserMessages?: number;
  /** Tool calls the client already has (the transcript's, sent in `MESSAGES_SNAPSHOT`): never announced again. */
  knownToolCallIds?: Iterable<string>;
}

/**
 * Turns AgentEvents and harness events into AG-UI 1.0 events, one event at a time, remembering what
 * is open (the text, reasoning and tool-call blocks of the streaming reply) so that every start gets
 * its end. Message ids are the messages' places in the transcript, so a later `MESSAGES_SNAPSHOT`
 * (see `toAgUiMessages`) names the same messages the same way. Sub-agents' events (with `agentPath`)
 * become AG-UI subagents (`SUBAGENT_STARTED` … `SUBAGENT_FINISHED`, their events carrying
 * `subagentRunId`; see `SubAgentStreams`), never part of the root's messages. Run framing
 * (`RUN_STARTED`, `RUN_FINISHED`) is the caller's: one agent run may be one of several in a harness
 * operation; before it ends the stream it calls `closeSubAgents`.
 *
 * Contract: `translate` is synchronous and never throws; events it has no mapping for give `[]`.
 *
 * ```ts
 * const translator = new AgUiTranslator({ firstMessageIndex: agent.state.messages.length });
 * agent.subscribe((event) => console.log(translator.translate(event)));
 * ```
 */
export class AgUiTranslator implements AgentStreamTranslator {
  readonly #prefix: string;
  #nextIndex: number;
  #userMessagesToSkip: number;
  /** The id of the assistant message being streamed. */
  #messageId = "";
  /** Ids of the text/reasoning blocks open in the streaming reply, by content index. */
  readonly #openText = new Map<number, string>();
  readonly #openReasoning = new Map<number, string>();
  /** Tool call ids by content index, while their arguments stream. */
  readonly #openToolCalls = new Map<number, string>();
  /** Tool calls announced by TOOL_CALL_START (a result for another call is sent with its start). */
  readonly #announcedToolCalls = new Set<string>();
  /** Tool names of this agent's calls that started (a sub-agent is named after its call's tool). */
  readonly #callNames = new Map<string, string>();
  #subAgents: SubAgentStreams | undefined;

  constructor(options: AgUiTranslationOptions = {}) {
    this.#prefix = options.messageIdPrefix ?? "m";
    this.#nextIndex = options.firstMessageIndex ?? 0;
    this.#userMessagesToSkip = options.skipUserMessages ?? 0;
    for (const id of options.knownToolCallIds ?? []) this.#announcedToolCalls.add(id);
  }

  /** The id of the latest assistant message (the reply whose calls run now); `""` before any. */
  get replyMessageId(): string {
    return this.#messageId;
  }

  /** The tool name of a call of this agent that started. */
  callName(toolCallId: string): string | undefined {
    return this.#callNames.get(toolCallId);
  }

  /** Finishes the sub-agents still open (a stream ending while they run or wait): call before `RUN_FINISHED`. */
  closeSubAgents(end: OpenSubAgentEnd): AgUiEvent[] {
    return this.#subAgents?.closeAll(end) ?? [];
  }

  /** The AG-UI events for one AgentEvent or harness event (often none, at most a few). */
  translate(event: HarnessEvent): AgUiEvent[] {
    const agentPath = (event as AgentEvent).agentPath;
    if (agentPath !== undefined && agentPath.length > 0) {
      this.#subAgents ??= new SubAgentStreams(
        this,
        (messageIdPrefix) => new AgUiTranslator({ messageIdPrefix, skipUserMessages: 1 }),
      );
      return this.#subAgents.translate(event as AgentEvent, agentPath);
    }
    switch (event.type) {
      case "tool_execution_start":
        this.#callNames.set(event.toolCallId, event.toolName);
        return [];
      case "message_start":
        return this.#messageStart(event.message);
      case "message_update":
        return this.#messageUpdate(event);
      case "message_end":
        return this.#messageEnd(event.message);
      case "tool_approval_request":
      case "tool_client_request":
        return [
          {
            type: "CUSTOM",
            name:
              event.type === "tool_approval_request"
                ? CUSTOM_EVENT.approvalRequest
                : CUSTOM_EVENT.clientRequest,
            value: { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args },
          },
        ];
      case "retry":
        return [{ type: "CUSTOM", name: CUSTOM_EVENT.retry, value: event }];
      case "output_delta":
        return [{ type: "CUSTOM", name: CUSTOM_EVENT.outputDelta, value: { partial: event.partial } }];
      case "budget_exceeded":
      case "loop_detected": {
        const { type, agentPath: _path, ...exceeded } = event;
        const name = type === "budget_exceeded" ? CUSTOM_EVENT.budgetExceeded : CUSTOM_EVENT.loopDetected;
        return [{ type: "CUSTOM", name, value: exceeded }];
      }
      case "guardrail_tripped": {
        const { type: _type, ...trip } = event;
        return [{ type: "CUSTOM", name: CUSTOM_EVENT.guardrailTripped, value: trip }];
      }
      default:
        return [];
    }
  }

  #messageStart(message: AgentMessage): AgUiEvent[] {
    const id = `${this.#prefix}${this.#nextIndex++}`;
    const role = (message as { role?: string }).role;
    if (role === "assistant") {
      this.#messageId = id;
      return [];
    }
    if (role !== "user") return [];
    if (this.#userMessagesToSkip > 0) {
      this.#userMessagesToSkip--;
      return [];
    }
    // Steering and follow-up messages: the client learns of them here.
    const text = messageText(message);
    return [
      { type: "TEXT_MESSAGE_START", messageId: id, role: "user" },
      ...(text ? [{ type: "TEXT_MESSAGE_CONTENT" as const, messageId: id, delta: text }] : []),
      { type: "TEXT_MESSAGE_END", messageId: id },
    ];
  }

  #messageUpdate(event: Extract<HarnessEvent, { type: "message_update" }>): AgUiEvent[] {
    const update = event.assistantMessageEvent;
    switch (update.type) {
      case "text_start": {
        const messageId = this.#blockId(update.contentIndex, this.#openText.size === 0);
        this.#openText.set(update.contentIndex, messageId);
        return [{ type: "TEXT_MESSAGE_START", messageId, role: "assistant" }];
      }
      case "text_delta": {
        const messageId = this.#openText.get(update.contentIndex);
        return messageId && update.delta
          ? [{ type: "TEXT_MESSAGE_CONTENT", messageId, delta: update.delta }]
          : [];
      }
      case "text_end":
        return this.#closeText(update.contentIndex);
      case "thinking_start": {
        const messageId = `${this.#messageId}:r${update.contentIndex}`;
        this.#openReasoning.set(update.contentIndex, messageId);
        return [
          { type: "REASONING_START", messageId },
          { type: "REASONING_MESSAGE_START", messageId, role: "reasoning" },
        ];
      }
      case "thinking_delta": {
        const messageId = this.#openReasoning.get(update.contentIndex);
        return messageId && update.delta
          ? [{ type: "REASONING_MESSAGE_CONTENT", messageId, delta: update.delta }]
          : [];
      }
      case "thinking_end":
        return this.#closeReasoning(update.contentIndex);
      case "toolcall_start": {
        const block = update.partial.content[update.contentIndex];
        if (block?.type !== "toolCall") return [];
        this.#openToolCalls.set(update.contentIndex, block.id);
        this.#announcedToolCalls.add(block.id);
        return [
          {
            type: "TOOL_CALL_START",
            toolCallId: block.id,
            toolCallName: block.name,
            parentMessageId: this.#messageId,
          },
        ];
      }
      case "toolcall_delta": {
        const toolCallId = this.#openToolCalls.get(update.contentIndex);
        return toolCallId && update.delta
          ? [{ type: "TOOL_CALL_ARGS", toolCallId, delta: update.delta }]
          : [];
      }
      case "toolcall_end":
        return this.#closeToolCall(update.contentIndex);
      default:
        return [];
    }
  }

  #messageEnd(message: AgentMessage): AgUiEvent[] {
    const role = (message as { role?: string }).role;
    if (role === "assistant") return this.#closeReply(message as AssistantMessage);
    if (role !== "toolResult") return [];
    const result = message as ToolResultMessage;
    const events: AgUiEvent[] = [];
    if (!this.#announcedToolCalls.has(result.toolCallId)) {
      // A call the model never streamed here (restored run): announce it so the result has a call.
      this.#announcedToolCalls.add(result.toolCallId);
      events.push(
        { type: "TOOL_CALL_START", toolCallId: result.toolCallId, toolCallName: result.toolName },
        { type: "TOOL_CALL_END", toolCallId: result.toolCallId },
      );
    }
    events.push({
      type: "TOOL_CALL_RESULT",
      messageId: `${this.#prefix}${this.#nextIndex - 1}`,
      toolCallId: result.toolCallId,
      content: messageText(result),
      role: "tool",
      metadata: { agentchart: { isError: result.isError } },
    });
    return events;
  }

  /** Ends every text, reasoning and tool-call block still open. */
  closeOpenBlocks(): AgUiEvent[] {
    const events: AgUiEvent[] = [];
    for (const index of [...this.#openText.keys()]) events.push(...this.#closeText(index));
    for (const index of [...this.#openReasoning.keys()]) events.push(...this.#closeReasoning(index));
    for (const index of [...this.#openToolCalls.keys()]) events.push(...this.#closeToolCall(index));
    return events;
  }

  /** Ends every block still open (a reply that stopped on an error or an abort). */
  #closeReply(message: AssistantMessage): AgUiEvent[] {
    const events = this.closeOpenBlocks();
    if (message.stopReason === "error" && message.errorMessage && !hasText(message)) {
      // A failed reply with no text would leave the client with nothing: show the error as its text.
      const messageId = this.#messageId;
      events.push(
        { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId, delta: message.errorMessage },
        { type: "TEXT_MESSAGE_END", messageId },
      );
    }
    return events;
  }

  #blockId(contentIndex: number, first: boolean): string {
    return first ? this.#messageId : `${this.#messageId}:${contentIndex}`;
  }

  #closeText(index: number): AgUiEvent[] {
    const messageId = this.#openText.get(index);
    if (!messageId) return [];
    this.#openText.delete(index);
    return [{ type: "TEXT_MESSAGE_END", messageId }];
  }

  #closeReasoning(index: number): AgUiEvent[] {
    const messageId = this.#openReasoning.get(index);
    if (!messageId) return [];
    this.#openReasoning.delete(index);
    return [
      { type: "REASONING_MESSAGE_END", messageId },
      { type: "REASONING_END", messageId },
    ];
  }

  #closeToolCall(index: number): AgUiEvent[] {
    const toolCallId = this.#openToolCalls.get(index);
    if (!toolCallId) return [];
    this.#openToolCalls.delete(index);
    return [{ type: "TOOL_CALL_END", toolCallId }];
  }
}

/**
 * An RxJS operator over {@link AgUiTranslator}: AgentEvents (or harness events) in, AG-UI events out.
 *
 * Contract: synchronous per event, never errors by itself; each subscription has its own translator.
 *
 * ```ts
 * agent.events$.pipe(toAgUiEvents()).subscribe((event) => console.log(event.type));
 * ```
 */
export function toAgUiEvents(
  options: AgUiTranslationOptions = {},
): OperatorFunction<HarnessEvent, AgUiEvent> {
  return (events: Observable<HarnessEvent>) =>
    defer(() => {
      const translator = new AgUiTranslator(options);
      return events.pipe(mergeMap((event) => observableFrom(translator.translate(event))));
    });
}

function hasText(message: AssistantMessage): boolean {
  return message.content.some((block) => block.type === "text" && block.text.length > 0);
}
