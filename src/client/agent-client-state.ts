import type { AgUiEvent, AgUiMessage, AgUiToolCall } from "../ag-ui/ag-ui-events.js";
import type { PendingApproval } from "../ag-ui/shared-state.js";

/** Where a tool call stands, as the client sees it (`awaiting-client`: a call of a frontend tool to answer). */
export type ClientToolCallStatus =
  | "streaming-args"
  | "running"
  | "awaiting-approval"
  | "awaiting-client"
  | "done"
  | "error";

/** A tool call of the conversation: its arguments as they stream (JSON text) and its result. */
export interface ClientToolCall {
  id: string;
  name: string;
  status: ClientToolCallStatus;
  /** The arguments' JSON text so far (complete once the status leaves `streaming-args`). */
  args: string;
  /** The result's text, once there is one. */
  result: string | undefined;
  /** The assistant message that made the call. */
  parentMessageId: string | undefined;
}

/** Where a sub-agent stands (`waiting`: its part of the run ended while it waits, e.g. for an approval). */
export type ClientSubAgentStatus = "running" | "waiting" | "done" | "error";

/**
 * A sub-agent of the run (an AG-UI subagent: agentchart's agent tools), as much as a UI shows of it
 * beside the root's messages: what it is, where it stands and the text it writes (its latest message).
 */
export interface ClientSubAgent {
  /** The AG-UI `subagentRunId` (agentchart: the `agentPath` joined with `/`). */
  id: string;
  /** Its tool's name. */
  name: string;
  /** The tool call ids from the root down to it (what approving its calls names). */
  agentPath: string[];
  /** The call that runs it, and the sub-agent above it (none for a child of the root). */
  parentToolCallId: string | undefined;
  parentId: string | undefined;
  status: ClientSubAgentStatus;
  /** Its latest text message (as it streams). */
  text: string;
  /** Why it failed (`status: "error"`). */
  error: string | undefined;
}

/** Whether a run goes on, waits (for an approval, or for the client to answer calls of its tools), ended, or failed. */
export type ClientStatus = "idle" | "running" | "waiting" | "error";

/** The conversation as the client store holds it (the snapshot's `context`). */
export interface AgentClientContext {
  threadId: string;
  /** The run the client follows (the last one it started or joined). */
  runId: string | undefined;
  /** The id of the last event received of that run (sent as `Last-Event-ID` on reconnect). */
  lastEventId: number;
  /** Finished messages, oldest first (AG-UI messages, ready to send back). */
  messages: AgUiMessage[];
  /** The message that streams now (text or reasoning), with its text so far. */
  streaming: AgUiMessage | undefined;
  toolCalls: Record<string, ClientToolCall>;
  status: ClientStatus;
  /**
   * Calls waiting for approval — a sub-agent's with its `agentPath` (answer with it: `approve({
   * toolCallId, agentPath })`).
   */
  awaitingApproval: PendingApproval[];
  /**
   * The sub-agents of the run the client follows, by id, in start order: their events never enter
   * `messages` (the root's transcript) nor `toolCalls`.
   */
  subAgents: Record<string, ClientSubAgent>;
  /** Calls of the client's (frontend) tools waiting for its answer (`answerTool`). */
  awaitingClient: PendingApproval[];
  /** Answers given (`answerTool`) and not sent yet: they go with the next run, once no call waits. */
  clientAnswers: AgUiMessage[];
  /** The last `STATE_SNAPSHOT` the server sent (agentchart servers: a `SharedAgentState`). */
  state: unknown;
  /** The message of the last `RUN_ERROR` (or of a failed request). */
  error: string | undefined;
}

/** The context of a client that has received nothing yet. */
export function initialClientContext(threadId: string): AgentClientContext {
  return {
    threadId,
    runId: undefined,
    lastEventId: 0,
    messages: [],
    streaming: undefined,
    toolCalls: {},
    status: "idle",
    awaitingApproval: [],
    subAgents: {},
    awaitingClient: [],
    clientAnswers: [],
    state: undefined,
    error: undefined,
  };
}

/**
 * Applies one AG-UI event (of any AG-UI server) to the client's context, returning a new context; a
 * text delta replaces only the streaming message (the message list is not copied). `id` is the event's
 * SSE id when it had one.
 *
 * Contract: pure and synchronous; never throws; events it does not know, and malformed ones (a
 * missing field, a wrong type), leave the context as it is.
 *
 * ```ts
 * const context = initialClientContext("t1");
 * const next = applyAgUiEvent(context, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hi" }, 7);
 * ```
 */
export function applyAgUiEvent(
  context: AgentClientContext,
  event: AgUiEvent,
  id?: number,
): AgentClientContext {
  let next: AgentClientContext;
  try {
    next = reduce(context, event, id);
  } catch {
    // An event of another server, or a broken one: the reducers read its fields as the protocol says.
    next = context;
  }
  return id === undefined || (next !== context && next.lastEventId === id)
    ? next
    : { ...next, lastEventId: id };
}

/** The context after `event`; the streamed deltas (most events) take their `id` in the same copy. */
function reduce(context: AgentClientContext, event: AgUiEvent, id?: number): AgentClientContext {
  if (event.subagentRunId !== undefined && !event.type.startsWith("SUBAGENT_"))
    return reduceSubAgentEvent(context, event.subagentRunId, event);
  switch (event.type) {
    case "RUN_STARTED":
      return { ...context, runId: event.runId, status: "running", error: undefined, subAgents: {} };
    case "SUBAGENT_STARTED": {
      const parent = event.parentSubagentRunId ? context.subAgents[event.parentSubagentRunId] : undefined;
      const parentPath = parent?.agentPath ?? [];
      const subAgent: ClientSubAgent = {
        id: event.subagentRunId,
        name: event.name,
        agentPath: event.parentToolCallId ? [...parentPath, event.parentToolCallId] : parentPath,
        parentToolCallId: event.parentToolCallId,
        parentId: event.parentSubagentRunId,
        status: "running",
        text: "",
        error: undefined,
      };
      return { ...context, subAgents: { ...context.subAgents, [subAgent.id]: subAgent } };
    }
    case "SUBAGENT_FINISHED":
      return updateSubAgent(context, event.subagentRunId, (subAgent) => ({
        ...subAgent,
        status: event.outcome?.type === "suspended" ? "waiting" : "done",
      }));
    case "SUBAGENT_ERROR":
      return updateSubAgent(context, event.subagentRunId, (subAgent) => ({
        ...subAgent,
        status: "error",
        error: event.message,
      }));
    case "RUN_FINISHED": {
      const flushed = { ...flushStreaming(context), awaitingApproval: [] };
      const pending = event.outcome?.type === "success" ? (event.outcome.pendingToolCallIds ?? []) : [];
      return pending.length > 0
        ? awaitClient({ ...flushed, status: "waiting" }, pending)
        : { ...flushed, status: "idle", awaitingClient: [] };
    }
    case "RUN_ERROR":
      return {
        ...flushStreaming(context),
        status: "error",
        awaitingApproval: [],
        awaitingClient: [],
        error: event.message,
      };
    case "MESSAGES_SNAPSHOT":
      return {
        ...context,
        messages: event.messages.map(normalized),
        streaming: undefined,
        toolCalls: toolCallsOf(event.messages),
      };
    case "TEXT_MESSAGE_START":
      return startStreaming(context, event.messageId, event.role === "user" ? "user" : "assistant");
    case "REASONING_MESSAGE_START":
      return startStreaming(context, event.messageId, "reasoning");
    case "TEXT_MESSAGE_CONTENT":
    case "REASONING_MESSAGE_CONTENT": {
      const streaming = context.streaming;
      if (streaming?.id !== event.messageId) return context;
      return {
        ...context,
        lastEventId: id ?? context.lastEventId,
        streaming: { ...streaming, content: `${streaming.content ?? ""}${event.delta}` } as AgUiMessage,
      };
    }
    case "TEXT_MESSAGE_END":
    case "REASONING_MESSAGE_END":
      return context.streaming?.id === event.messageId ? flushStreaming(context) : context;
    case "TOOL_CALL_START":
      return startToolCall(context, event.toolCallId, event.toolCallName, event.parentMessageId);
    case "TOOL_CALL_ARGS":
      return updateToolCall(context, event.toolCallId, (call) => ({
        ...call,
        args: call.args + event.delta,
      }));
    case "TOOL_CALL_END": {
      const call = context.toolCalls[event.toolCallId];
      if (!call) return context;
      const ended = updateToolCall(context, call.id, (current) =>
        current.status === "streaming-args" ? { ...current, status: "running" } : current,
      );
      return setMessageToolCallArgs(ended, call);
    }
    case "TOOL_CALL_RESULT": {
      const isError = event.metadata?.agentchart?.isError === true;
      const withResult = updateToolCall(context, event.toolCallId, (call) => ({
        ...call,
        status: isError ? "error" : "done",
        result: event.content,
      }));
      const message: AgUiMessage = {
        id: event.messageId,
        role: "tool",
        toolCallId: event.toolCallId,
        content: event.content,
        ...(event.metadata ? { metadata: event.metadata } : {}),
      };
      return {
        ...withResult,
        messages: [...withResult.messages.filter((existing) => existing.id !== event.messageId), message],
        awaitingApproval: withResult.awaitingApproval.filter(
          (pending) => pending.toolCallId !== event.toolCallId,
        ),
        awaitingClient: withResult.awaitingClient.filter(
          (pending) => pending.toolCallId !== event.toolCallId,
        ),
      };
    }
    case "STATE_SNAPSHOT":
      return applySharedState(context, event.snapshot);
    case "CUSTOM": {
      const request = event.value as PendingApproval;
      const others = (list: PendingApproval[]) => list.filter((pending) => !sameCall(pending, request));
      // The names of agentchart's CUSTOM events (CUSTOM_EVENT of agentchart/ag-ui, not imported: the
      // client takes no runtime code from the server).
      if (event.name === "agentchart.tool_approval_request")
        return setWaiting(context, [...others(context.awaitingApproval), request], context.awaitingClient);
      if (event.name === "agentchart.tool_client_request")
        return setWaiting(context, context.awaitingApproval, [...others(context.awaitingClient), request]);
      return context;
    }
    default:
      return context;
  }
}

/**
 * A sub-agent's event: its text is its latest message; its waiting calls join the root's lists with
 * their `agentPath`; nothing else of it enters the root's messages or tool calls.
 */
function reduceSubAgentEvent(
  context: AgentClientContext,
  subagentRunId: string,
  event: AgUiEvent,
): AgentClientContext {
  switch (event.type) {
    case "TEXT_MESSAGE_START":
      return event.role === "user"
        ? context
        : updateSubAgent(context, subagentRunId, (subAgent) => ({ ...subAgent, text: "" }));
    case "TEXT_MESSAGE_CONTENT":
      return updateSubAgent(context, subagentRunId, (subAgent) => ({
        ...subAgent,
        text: subAgent.text + event.delta,
      }));
    case "CUSTOM":
      return reduce(context, { type: "CUSTOM", name: event.name, value: event.value });
    default:
      return context;
  }
}

function updateSubAgent(
  context: AgentClientContext,
  id: string,
  update: (subAgent: ClientSubAgent) => ClientSubAgent,
): AgentClientContext {
  const subAgent = context.subAgents[id];
  if (!subAgent) return context;
  return { ...context, subAgents: { ...context.subAgents, [id]: update(subAgent) } };
}

/** Whether two waiting calls are the same call (the same id in the same agent). */
function sameCall(a: PendingApproval, b: PendingApproval): boolean {
  return a.toolCallId === b.toolCallId && (a.agentPath ?? []).join("/") === (b.agentPath ?? []).join("/");
}

function startStreaming(
  context: AgentClientContext,
  id: string,
  role: "user" | "assistant" | "reasoning",
): AgentClientContext {
  const flushed = flushStreaming(context);
  const existing = flushed.messages.find((message) => message.id === id);
  const streaming = (
    existing ? { ...existing, content: existing.content ?? "" } : { id, role, content: "" }
  ) as AgUiMessage;
  return { ...flushed, streaming };
}

/** Moves the streaming message into the list (replacing an earlier version of it). */
function flushStreaming(context: AgentClientContext): AgentClientContext {
  const streaming = context.streaming;
  if (!streaming) return context;
  const index = context.messages.findIndex((message) => message.id === streaming.id);
  const messages = index === -1 ? [...context.messages, streaming] : context.messages.with(index, streaming);
  return { ...context, messages, streaming: undefined };
}

function startToolCall(
  context: AgentClientContext,
  toolCallId: string,
  name: string,
  parentMessageId: string | undefined,
): AgentClientContext {
  const call: ClientToolCall = {
    id: toolCallId,
    name,
    status: "streaming-args",
    args: "",
    result: undefined,
    parentMessageId,
  };
  const withCall = { ...flushStreaming(context), toolCalls: { ...context.toolCalls, [toolCallId]: call } };
  const parentId = parentMessageId ?? `${toolCallId}:message`;
  const messages = withCall.messages;
  const index = messages.findLastIndex((message) => message.id === parentId);
  const entry: AgUiToolCall = { id: toolCallId, type: "function", function: { name, arguments: "" } };
  if (index === -1)
    return { ...withCall, messages: [...messages, { id: parentId, role: "assistant", toolCalls: [entry] }] };
  const parent = messages[index] as Extract<AgUiMessage, { role: "assistant" }>;
  return {
    ...withCall,
    messages: messages.with(index, { ...parent, toolCalls: [...(parent.toolCalls ?? []), entry] }),
  };
}

function setMessageToolCallArgs(context: AgentClientContext, call: ClientToolCall): AgentClientContext {
  const args = context.toolCalls[call.id]?.args ?? call.args;
  const index = context.messages.findLastIndex(
    (message) =>
      message.role === "assistant" && (message.toolCalls ?? []).some((entry) => entry.id === call.id),
  );
  if (index === -1) return context;
  const parent = context.messages[index] as Extract<AgUiMessage, { role: "assistant" }>;
  const toolCalls = (parent.toolCalls ?? []).map((entry) =>
    entry.id === call.id ? { ...entry, function: { ...entry.function, arguments: args } } : entry,
  );
  return { ...context, messages: context.messages.with(index, { ...parent, toolCalls }) };
}

function updateToolCall(
  context: AgentClientContext,
  toolCallId: string,
  update: (call: ClientToolCall) => ClientToolCall,
): AgentClientContext {
  const call = context.toolCalls[toolCallId];
  if (!call) return context;
  return { ...context, toolCalls: { ...context.toolCalls, [toolCallId]: update(call) } };
}

/** Reads an agentchart `SharedAgentState`; other servers' state is kept as it is. */
function applySharedState(context: AgentClientContext, snapshot: unknown): AgentClientContext {
  const shared = snapshot as
    | { phase?: unknown; awaitingApproval?: unknown; awaitingClient?: unknown }
    | undefined;
  const withState = { ...context, state: snapshot };
  if (!Array.isArray(shared?.awaitingApproval)) return withState;
  const phase = shared.phase;
  const status: ClientStatus =
    phase === "waiting" ? "waiting" : phase === "running" ? "running" : context.status;
  const awaitingClient = Array.isArray(shared.awaitingClient)
    ? (shared.awaitingClient as PendingApproval[])
    : context.awaitingClient;
  return setWaiting({ ...withState, status }, shared.awaitingApproval as PendingApproval[], awaitingClient);
}

/**
 * Marks the calls named by `toolCallIds` (calls of the context) as waiting for the client, e.g. those a
 * run ended on (`RUN_FINISHED.outcome.pendingToolCallIds`) or calls of the client's own tools that a
 * server left unanswered. Calls already answered (`done`, `error`) are left as they are.
 *
 * Contract: pure and synchronous; never throws; unknown ids are ignored.
 *
 * ```ts
 * const next = awaitClient(initialClientContext("t1"), ["call_1"]);
 * ```
 */
export function awaitClient(context: AgentClientContext, toolCallIds: Iterable<string>): AgentClientContext {
  const added: PendingApproval[] = [];
  for (const id of toolCallIds) {
    const call = context.toolCalls[id];
    if (!call || call.status === "done" || call.status === "error") continue;
    if (context.awaitingClient.some((pending) => pending.toolCallId === id)) continue;
    added.push({ toolCallId: id, toolName: call.name, args: parsedArgs(call.args) });
  }
  return setWaiting(context, context.awaitingApproval, [...context.awaitingClient, ...added]);
}

/**
 * Takes the calls named by `toolCallIds` off the calls waiting for the client (the client answered
 * them; the answer is on its way): they are `running` until their result arrives.
 *
 * Contract: pure and synchronous; never throws.
 */
export function clientAnswered(
  context: AgentClientContext,
  toolCallIds: ReadonlySet<string>,
): AgentClientContext {
  if (!context.awaitingClient.some((pending) => toolCallIds.has(pending.toolCallId))) return context;
  return setWaiting(
    context,
    context.awaitingApproval,
    context.awaitingClient.filter((pending) => !toolCallIds.has(pending.toolCallId)),
  );
}

/** Sets the calls waiting for approval and for the client, moving calls that stopped waiting back to `running`. */
function setWaiting(
  context: AgentClientContext,
  awaitingApproval: PendingApproval[],
  awaitingClient: PendingApproval[],
): AgentClientContext {
  // `toolCalls` holds the root's calls only: a sub-agent's waiting call (with `agentPath`) marks none.
  const own = (list: PendingApproval[]) =>
    new Set(list.filter((pending) => !pending.agentPath?.length).map((pending) => pending.toolCallId));
  const approval = own(awaitingApproval);
  const client = own(awaitingClient);
  let toolCalls = context.toolCalls;
  for (const call of Object.values(context.toolCalls)) {
    const status: ClientToolCallStatus = approval.has(call.id)
      ? "awaiting-approval"
      : client.has(call.id)
        ? "awaiting-client"
        : call.status === "awaiting-approval" || call.status === "awaiting-client"
          ? "running"
          : call.status;
    if (status !== call.status) toolCalls = { ...toolCalls, [call.id]: { ...call, status } };
  }
  return { ...context, toolCalls, awaitingApproval, awaitingClient };
}

function parsedArgs(text: string): unknown {
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch {
    return text;
  }
}

function normalized(message: AgUiMessage): AgUiMessage {
  const content = (message as { content?: unknown }).content;
  if (content === undefined || typeof content === "string") return message;
  const text = Array.isArray(content)
    ? content
        .map((part) => ((part as { type?: string }).type === "text" ? (part as { text: string }).text : ""))
        .join("")
    : "";
  return { ...message, content: text } as AgUiMessage;
}

/** The tool calls of a messages snapshot: done or error by their results, running without one. */
function toolCallsOf(messages: AgUiMessage[]): Record<string, ClientToolCall> {
  const calls: Record<string, ClientToolCall> = {};
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages)
    if (message.role === "tool")
      results.set(message.toolCallId, {
        content: normalized(message).content as string,
        isError: message.error !== undefined || message.metadata?.agentchart?.isError === true,
      });
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const entry of message.toolCalls ?? []) {
      const result = results.get(entry.id);
      calls[entry.id] = {
        id: entry.id,
        name: entry.function.name,
        status: result === undefined ? "running" : result.isError ? "error" : "done",
        args: entry.function.arguments,
        result: result?.content,
        parentMessageId: message.id,
      };
    }
  }
  return calls;
}
