import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { agentMachine } from "../machines/agent.machine.js";
import { errorText } from "../types/error-text.js";
import type { AgentEvent } from "../types/events.js";
import type { AgentMessage, AssistantMessage, StopReason } from "../types/messages.js";
import type { Model } from "../types/model.js";
import { recordChoice, recordInputMessage, recordSystemPrompt } from "./content-events.js";
import { AGENTCHART, ERROR_TYPE, ERROR_TYPE_VALUE, GEN_AI, GEN_AI_OPERATION } from "./gen-ai-attributes.js";
import { stateValueText } from "./state-value-text.js";

/** Options shared by every way of tracing agentchart (`instrument`, `tracedAgentLoop`). */
export interface TraceOptions {
  /** Default: `trace.getTracer("agentchart")` of the globally registered tracer provider. */
  tracer?: Tracer;
  /** Record message content (prompts, replies, tool arguments and results). Default `false`. */
  captureContent?: boolean;
  /** `gen_ai.agent.name`, also in the run span's name `invoke_agent {name}`. Default `"agentchart"`. */
  agentName?: string;
  /** `gen_ai.agent.id`, when the app has one. */
  agentId?: string;
  /** `gen_ai.conversation.id`; an AgentHarness uses its session id when this is not set. */
  conversationId?: string;
}

/** What a RunTracer asks of the thing it traces. */
export interface TracedSource {
  /** The model the next request goes to (read at `turn_start`). */
  requestModel(): Model;
  /** The system prompt, for `captureContent`. */
  systemPrompt(): string;
  /** Whether the current run was aborted (read when tool calls and runs end). */
  runAborted(): boolean;
}

interface ToolSpan {
  span: Span;
  context: Context;
  approvalRequestedAt: number | undefined;
  /** Set when `execute` threw: the exception's class name. */
  errorType: string | undefined;
}

interface ChatSpan {
  span: Span;
  startedAt: number;
  firstToken: boolean;
}

interface RunSpan {
  span: Span;
  context: Context;
  /**
   * False for a no-op tracer or a run sampled out: its model and tool calls then get no spans of their
   * own (they would not be recorded either), which keeps tracing nearly free when it is off.
   */
  recording: boolean;
  /** Ended at `agent_end` (an Agent run) or by `endOperation` (a harness operation spanning runs). */
  endsWithRun: boolean;
  turns: number;
  failure: StopReason | undefined;
}

const DEFAULT_AGENT_NAME = "agentchart";

/**
 * Turns the AgentEvents and XState inspection events of runs into spans: `invoke_agent {name}` per
 * run, `chat {model}` per model call and `execute_tool {tool}` per tool call under it, state
 * transitions as `agentchart.state` events. Feed it every event of a run in order; `agent_end` ends
 * every span the run opened. Never throws on odd event sequences (an end without a start is ignored).
 */
export class RunTracer {
  readonly #tracer: Tracer;
  readonly #options: TraceOptions;
  readonly #source: TracedSource;
  readonly #tools = new Map<string, ToolSpan>();
  readonly #lastState = new WeakMap<AnyActorRef, string>();
  #run: RunSpan | undefined;
  #chat: ChatSpan | undefined;
  #conversationId: string | undefined;

  constructor(tracer: Tracer, options: TraceOptions, source: TracedSource) {
    this.#tracer = tracer;
    this.#options = options;
    this.#source = source;
    this.#conversationId = options.conversationId;
  }

  /** Sets `gen_ai.conversation.id` of runs that start from now on (unless the options fixed one). */
  setConversationId(id: string): void {
    this.#conversationId = this.#options.conversationId ?? id;
  }

  /** Whether a run span is open and recording (no-op tracers record nothing). */
  get recording(): boolean {
    return this.#run?.recording === true;
  }

  /** The context of the open run span (the parent of phase spans), if any. */
  get runContext(): Context | undefined {
    return this.#run?.context;
  }

  /** Applies one AgentEvent. */
  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case "message_update":
        // The per-delta path: one comparison unless this is the reply's first delta.
        if (this.#chat && !this.#chat.firstToken) this.#markFirstToken(this.#chat);
        return;
      case "agent_start":
        this.#startRun(true);
        return;
      case "turn_start":
        this.#startChat();
        return;
      case "message_end":
        this.#onMessageEnd(event.message);
        return;
      case "tool_execution_start":
        this.#startTool(event.toolCallId, event.toolName, event.args);
        return;
      case "tool_approval_request": {
        const tool = this.#tools.get(event.toolCallId);
        if (!tool) return;
        tool.approvalRequestedAt = performance.now();
        tool.span.addEvent(AGENTCHART.approvalRequested);
        return;
      }
      case "tool_execution_end":
        this.#endTool(event.toolCallId, event.isError, event.result);
        return;
      case "agent_end":
        if (this.#run && this.#source.runAborted()) this.#run.failure = "aborted";
        this.#endRunSpans();
        if (this.#run?.endsWithRun) this.#endRun();
        return;
      default:
        return;
    }
  }

  /**
   * Opens the run span of a harness operation: every Agent run until `endOperation` (retries,
   * follow-up turns) shares it. Adopts a run span that is already open.
   */
  beginOperation(): void {
    if (this.#run) this.#run.endsWithRun = false;
    else this.#startRun(false);
  }

  /** Ends the operation's run span (and anything still open under it). */
  endOperation(): void {
    this.#endRunSpans();
    this.#endRun();
  }

  /**
   * Called by a traced tool's `execute`: the context it runs in (its span's), or undefined when the
   * call has no open span. Marks an approved call's approval as granted.
   */
  toolExecutionContext(toolCallId: string): Context | undefined {
    const tool = this.#tools.get(toolCallId);
    if (!tool) return undefined;
    if (tool.approvalRequestedAt !== undefined) {
      tool.span.addEvent(AGENTCHART.approvalGranted, {
        [AGENTCHART.approvalWaitMs]: performance.now() - tool.approvalRequestedAt,
      });
      tool.approvalRequestedAt = undefined;
    }
    return tool.context;
  }

  /** Called by a traced tool whose `execute` threw: records the exception on its span. */
  toolThrew(toolCallId: string, error: unknown): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool) return;
    tool.span.recordException(error instanceof Error ? error : errorText(error));
    tool.errorType = error instanceof Error ? error.name : "_OTHER";
  }

  /**
   * Applies an XState inspection event: a loop or tool-call machine that entered a new state adds an
   * `agentchart.state` event to the run span or to the call's tool span.
   */
  onInspection(event: InspectionEvent): void {
    // Microsteps, not snapshots: a macrostep may pass through states (e.g. `preparingTurn` with a
    // synchronous decision) that no snapshot event shows.
    if (event.type !== "@xstate.microstep") return;
    const value = (event.snapshot as { value?: unknown }).value;
    if (value === undefined || this.#run === undefined) return;
    // Snapshot events come from full actor refs (the type only promises `ActorRefLike`).
    const actor = event.actorRef as AnyActorRef;
    // A tool-call actor's id is its tool call id; the loop is the system's root (or, should it run
    // as a child, still the `agent` machine).
    const span =
      this.#tools.get(actor.id)?.span ??
      (event.rootId === actor.sessionId || machineName(actor) === agentMachine.id
        ? this.#run.span
        : undefined);
    if (!span) return;
    this.#addState(span, actor, value);
  }

  /**
   * Records the state the agent actor is in now, on the run span: the run's first state is entered in
   * the macrostep that emits `agent_start`, before the run span exists.
   */
  recordCurrentState(agent: AnyActorRef): void {
    if (this.#run) this.#addState(this.#run.span, agent, (agent.getSnapshot() as { value?: unknown }).value);
  }

  #addState(span: Span, actor: AnyActorRef, value: unknown): void {
    const text = stateValueText(value as Parameters<typeof stateValueText>[0]);
    if (this.#lastState.get(actor) === text) return;
    this.#lastState.set(actor, text);
    span.addEvent(AGENTCHART.state, {
      [AGENTCHART.state]: text,
      [AGENTCHART.machine]: machineName(actor),
    });
  }

  /** Ends every open span (used by `dispose()` and when a traced loop stops early). */
  endAll(): void {
    this.#endRunSpans();
    this.#endRun();
  }

  #startRun(endsWithRun: boolean): void {
    if (this.#run) return;
    const name = this.#options.agentName ?? DEFAULT_AGENT_NAME;
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent,
      [GEN_AI.agentName]: name,
    };
    if (this.#options.agentId !== undefined) attributes[GEN_AI.agentId] = this.#options.agentId;
    if (this.#conversationId !== undefined) attributes[GEN_AI.conversationId] = this.#conversationId;
    const parent = context.active();
    const span = this.#tracer.startSpan(
      `${GEN_AI_OPERATION.invokeAgent} ${name}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    this.#run = {
      span,
      context: trace.setSpan(parent, span),
      recording: span.isRecording(),
      endsWithRun,
      turns: 0,
      failure: undefined,
    };
    if (this.#options.captureContent && span.isRecording())
      recordSystemPrompt(span, this.#source.systemPrompt());
  }

  #startChat(): void {
    const run = this.#run;
    if (!run) return;
    run.turns++;
    if (!run.recording) return;
    this.#chat?.span.end();
    const model = this.#source.requestModel();
    const span = this.#tracer.startSpan(
      `${GEN_AI_OPERATION.chat} ${model.id}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
          [GEN_AI.providerName]: model.provider,
          [GEN_AI.requestModel]: model.id,
        },
      },
      run.context,
    );
    this.#chat = { span, startedAt: performance.now(), firstToken: false };
  }

  #markFirstToken(chat: ChatSpan): void {
    chat.firstToken = true;
    chat.span.addEvent(AGENTCHART.firstToken, {
      [AGENTCHART.timeToFirstTokenMs]: performance.now() - chat.startedAt,
    });
  }

  #onMessageEnd(message: AgentMessage): void {
    if ((message as { role?: unknown }).role !== "assistant") {
      if (this.#options.captureContent && this.#run?.recording) recordInputMessage(this.#run.span, message);
      return;
    }
    const chat = this.#chat;
    if (!chat) return;
    this.#chat = undefined;
    const reply = message as AssistantMessage;
    const finishReason = finishReasonOf(reply.stopReason);
    const usage = reply.usage;
    chat.span.setAttributes({
      [GEN_AI.responseModel]: reply.model,
      [GEN_AI.finishReasons]: [finishReason],
      [GEN_AI.inputTokens]: usage.input,
      [GEN_AI.outputTokens]: usage.output,
      [GEN_AI.cacheReadInputTokens]: usage.cacheRead,
      [GEN_AI.cacheCreationInputTokens]: usage.cacheWrite,
      [AGENTCHART.costUsd]: usage.cost.total,
    });
    if (this.#options.captureContent) recordChoice(chat.span, reply, finishReason);
    if (reply.stopReason === "error" || reply.stopReason === "aborted") {
      const errorType =
        reply.stopReason === "aborted" ? ERROR_TYPE_VALUE.aborted : ERROR_TYPE_VALUE.providerError;
      chat.span.setAttribute(ERROR_TYPE, errorType);
      chat.span.setStatus({ code: SpanStatusCode.ERROR, message: reply.errorMessage ?? reply.stopReason });
      if (this.#run) this.#run.failure = reply.stopReason;
    } else if (this.#run) {
      this.#run.failure = undefined;
    }
    chat.span.end();
  }

  #startTool(toolCallId: string, toolName: string, args: unknown): void {
    const run = this.#run;
    if (!run?.recording) return;
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
      [GEN_AI.toolName]: toolName,
      [GEN_AI.toolCallId]: toolCallId,
      [GEN_AI.toolType]: "function",
    };
    if (this.#options.captureContent) attributes[GEN_AI.toolCallArguments] = JSON.stringify(args);
    const span = this.#tracer.startSpan(
      `${GEN_AI_OPERATION.executeTool} ${toolName}`,
      { kind: SpanKind.INTERNAL, attributes },
      run.context,
    );
    this.#tools.get(toolCallId)?.span.end();
    this.#tools.set(toolCallId, {
      span,
      context: trace.setSpan(run.context, span),
      approvalRequestedAt: undefined,
      errorType: undefined,
    });
  }

  #endTool(toolCallId: string, isError: boolean, result: { content: unknown }): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool) return;
    this.#tools.delete(toolCallId);
    const span = tool.span;
    if (this.#options.captureContent)
      span.setAttribute(GEN_AI.toolCallResult, JSON.stringify(result.content));
    if (isError) {
      const aborted = tool.errorType === undefined && this.#source.runAborted();
      span.setAttribute(
        ERROR_TYPE,
        tool.errorType ?? (aborted ? ERROR_TYPE_VALUE.aborted : ERROR_TYPE_VALUE.toolError),
      );
      span.setStatus({ code: SpanStatusCode.ERROR, message: firstText(result.content) });
    }
    span.end();
  }

  /** Ends the chat and tool spans a run left open (an abort, a crash). */
  #endRunSpans(): void {
    if (this.#chat) {
      markAborted(this.#chat.span);
      this.#chat.span.end();
      this.#chat = undefined;
    }
    for (const tool of this.#tools.values()) {
      markAborted(tool.span);
      tool.span.end();
    }
    this.#tools.clear();
  }

  #endRun(): void {
    const run = this.#run;
    if (!run) return;
    this.#run = undefined;
    run.span.setAttribute(AGENTCHART.turns, run.turns);
    if (run.failure) {
      const errorType = run.failure === "aborted" ? ERROR_TYPE_VALUE.aborted : ERROR_TYPE_VALUE.providerError;
      run.span.setAttribute(ERROR_TYPE, errorType);
      run.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: `The run ended with stopReason "${run.failure}"`,
      });
    }
    run.span.end();
  }
}

/** GenAI finish reasons for agentchart's stop reasons. */
function finishReasonOf(stopReason: StopReason): string {
  return stopReason === "toolUse" ? "tool_call" : stopReason;
}

/** The machine's id (`agent`, `toolCall`), else the actor's id. */
function machineName(actor: AnyActorRef): string {
  if (typeof actor.src === "string") return actor.src;
  return (actor.src as { id?: string }).id ?? actor.id;
}

function markAborted(span: Span): void {
  span.setAttribute(ERROR_TYPE, ERROR_TYPE_VALUE.aborted);
  span.setStatus({ code: SpanStatusCode.ERROR, message: "The run ended before this finished" });
}

function firstText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const block = content.find((part): part is { type: "text"; text: string } => part?.type === "text");
  return block?.text;
}
