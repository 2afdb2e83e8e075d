import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { BudgetExceeded, BudgetUsage } from "../types/budget.js";
import { errorText } from "../types/error-text.js";
import type { AgentMessage, AssistantMessage, StopReason } from "../types/messages.js";
import type { Model } from "../types/model.js";
import { recordChoice, recordInputMessage, recordSystemPrompt } from "./content-events.js";
import { AGENTCHART, ERROR_TYPE, ERROR_TYPE_VALUE, GEN_AI, GEN_AI_OPERATION } from "./gen-ai-attributes.js";
import { SpanKind, SpanStatusCode, trace } from "./otel-api.js";

/** What the spans of one agent need from the tracer that owns them. */
export interface AgentSpansSettings {
  tracer: Tracer;
  captureContent: boolean;
  /** Whether the run was aborted (read when tool calls and runs end). */
  runAborted(): boolean;
}

/** An open `execute_tool` span. */
export interface ToolSpan {
  span: Span;
  /** The span's context: the parent of what the tool's `execute` (or its sub-agent) starts. */
  context: Context;
  toolName: string;
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

/**
 * The spans of one agent of a traced tree (the root, or a sub-agent): its `invoke_agent` run span,
 * the `chat` span of the model call in flight and the `execute_tool` spans of its open calls. A
 * `RunTracer` holds one per running agent and routes each AgentEvent to the agent that emitted it.
 * Never throws on odd sequences: an end without a start is ignored.
 */
export class AgentSpans {
  readonly #settings: AgentSpansSettings;
  readonly #tools = new Map<string, ToolSpan>();
  #run: RunSpan | undefined;
  #chat: ChatSpan | undefined;

  constructor(settings: AgentSpansSettings) {
    this.#settings = settings;
  }

  /** Whether a run span is open and recording. */
  get recording(): boolean {
    return this.#run?.recording === true;
  }

  /** The open run span, if any. */
  get runSpan(): Span | undefined {
    return this.#run?.span;
  }

  /** The context of the open run span, if any. */
  get runContext(): Context | undefined {
    return this.#run?.context;
  }

  /** Whether the open run span ends with the run's `agent_end` (false: a harness operation ends it). */
  get endsWithRun(): boolean {
    return this.#run?.endsWithRun === true;
  }

  /** The open span of a call of this agent. */
  tool(toolCallId: string): ToolSpan | undefined {
    return this.#tools.get(toolCallId);
  }

  /** Opens the run span `name` under `parent` (no-op while one is open). */
  startRun(
    name: string,
    attributes: Attributes,
    parent: Context,
    endsWithRun: boolean,
    systemPrompt: string,
  ) {
    if (this.#run) return;
    const span = this.#settings.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    this.#run = {
      span,
      context: trace.setSpan(parent, span),
      recording: span.isRecording(),
      endsWithRun,
      turns: 0,
      failure: undefined,
    };
    if (this.#settings.captureContent && span.isRecording()) recordSystemPrompt(span, systemPrompt);
  }

  /** Makes the open run span outlive the run (a harness operation ends it). Returns false when none is open. */
  keepOpenAfterRun(): boolean {
    if (!this.#run) return false;
    this.#run.endsWithRun = false;
    return true;
  }

  /** A turn starts: counts it and opens its `chat {model}` span. */
  startChat(model: () => Model): void {
    const run = this.#run;
    if (!run) return;
    run.turns++;
    if (!run.recording) return;
    this.#chat?.span.end();
    const requested = model();
    const span = this.#settings.tracer.startSpan(
      `${GEN_AI_OPERATION.chat} ${requested.id}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
          [GEN_AI.providerName]: requested.provider,
          [GEN_AI.requestModel]: requested.id,
        },
      },
      run.context,
    );
    this.#chat = { span, startedAt: performance.now(), firstToken: false };
  }

  /** A reply delta arrived: the first one of a reply marks the time to first token. */
  onDelta(): void {
    const chat = this.#chat;
    if (!chat || chat.firstToken) return;
    chat.firstToken = true;
    chat.span.addEvent(AGENTCHART.firstToken, {
      [AGENTCHART.timeToFirstTokenMs]: performance.now() - chat.startedAt,
    });
  }

  /** A message ended: a reply ends its chat span; other messages are input content. */
  onMessageEnd(message: AgentMessage): void {
    if ((message as { role?: unknown }).role !== "assistant") {
      if (this.#settings.captureContent && this.#run?.recording) recordInputMessage(this.#run.span, message);
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
    if (this.#settings.captureContent) recordChoice(chat.span, reply, finishReason);
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

  /** A call starts: opens its `execute_tool {tool}` span under the run span. */
  startTool(toolCallId: string, toolName: string, args: unknown): void {
    const run = this.#run;
    if (!run?.recording) return;
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
      [GEN_AI.toolName]: toolName,
      [GEN_AI.toolCallId]: toolCallId,
      [GEN_AI.toolType]: "function",
    };
    if (this.#settings.captureContent) attributes[GEN_AI.toolCallArguments] = JSON.stringify(args);
    const span = this.#settings.tracer.startSpan(
      `${GEN_AI_OPERATION.executeTool} ${toolName}`,
      { kind: SpanKind.INTERNAL, attributes },
      run.context,
    );
    this.#tools.get(toolCallId)?.span.end();
    this.#tools.set(toolCallId, {
      span,
      context: trace.setSpan(run.context, span),
      toolName,
      approvalRequestedAt: undefined,
      errorType: undefined,
    });
  }

  /** A call waits for approval. */
  onApprovalRequest(toolCallId: string): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool) return;
    tool.approvalRequestedAt = performance.now();
    tool.span.addEvent(AGENTCHART.approvalRequested);
  }

  /** A call's tool runs now: marks a waiting approval as granted. */
  onToolRuns(tool: ToolSpan): void {
    if (tool.approvalRequestedAt === undefined) return;
    tool.span.addEvent(AGENTCHART.approvalGranted, {
      [AGENTCHART.approvalWaitMs]: performance.now() - tool.approvalRequestedAt,
    });
    tool.approvalRequestedAt = undefined;
  }

  /** A call's `execute` threw: records the exception on its span. */
  onToolThrew(tool: ToolSpan, error: unknown): void {
    tool.span.recordException(error instanceof Error ? error : errorText(error));
    tool.errorType = error instanceof Error ? error.name : "_OTHER";
  }

  /** A call ended: ends its span (an error result sets its status). */
  endTool(toolCallId: string, isError: boolean, result: { content: unknown }): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool) return;
    this.#tools.delete(toolCallId);
    const span = tool.span;
    if (this.#settings.captureContent)
      span.setAttribute(GEN_AI.toolCallResult, JSON.stringify(result.content));
    if (isError) {
      const aborted = tool.errorType === undefined && this.#settings.runAborted();
      span.setAttribute(
        ERROR_TYPE,
        tool.errorType ?? (aborted ? ERROR_TYPE_VALUE.aborted : ERROR_TYPE_VALUE.toolError),
      );
      span.setStatus({ code: SpanStatusCode.ERROR, message: firstText(result.content) });
    }
    span.end();
  }

  /** The run ended (`agent_end`): notes an abort and ends the chat and tool spans it left open. */
  onRunEnd(): void {
    if (this.#run && this.#settings.runAborted()) this.#run.failure = "aborted";
    this.endOpenSpans();
  }

  /** Ends the chat and tool spans a run left open (an abort, a crash). */
  endOpenSpans(): void {
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

  /** The run's usage against its budget, at its end: one attribute per count on the run span. */
  onBudgetUsage(usage: BudgetUsage): void {
    this.#run?.span.setAttributes({
      [AGENTCHART.budgetTokens]: usage.tokens,
      [AGENTCHART.budgetCostUsd]: usage.costUsd,
      [AGENTCHART.budgetModelCalls]: usage.modelCalls,
      [AGENTCHART.budgetToolCalls]: usage.toolCalls,
      [AGENTCHART.budgetTurns]: usage.turns,
      [AGENTCHART.budgetWallMs]: usage.wallMs,
    });
  }

  /** A limit reached or a loop breaker: an event of the run span with the limit, its use and action. */
  onBudgetExceeded(kind: "budget_exceeded" | "loop_detected", exceeded: BudgetExceeded): void {
    this.#run?.span.addEvent(
      kind === "budget_exceeded" ? AGENTCHART.budgetExceeded : AGENTCHART.loopDetected,
      {
        [AGENTCHART.budgetName]: exceeded.budget,
        [AGENTCHART.budgetLimit]: exceeded.limit,
        [AGENTCHART.budgetUsed]: exceeded.used,
        [AGENTCHART.budgetAction]: exceeded.action,
        ...(exceeded.subAgentPath
          ? { [AGENTCHART.budgetSubAgentPath]: exceeded.subAgentPath.join("/") }
          : {}),
      },
    );
  }

  /** Ends the run span, with its turn count and, for a failed run, its error status. */
  endRun(): void {
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

function markAborted(span: Span): void {
  span.setAttribute(ERROR_TYPE, ERROR_TYPE_VALUE.aborted);
  span.setStatus({ code: SpanStatusCode.ERROR, message: "The run ended before this finished" });
}

function firstText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const block = content.find((part): part is { type: "text"; text: string } => part?.type === "text");
  return block?.text;
}
