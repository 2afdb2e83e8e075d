// Attribute, event and value names of the OpenTelemetry GenAI semantic conventions (and agentchart's
// own additions), in one place. `@opentelemetry/semantic-conventions` marks its GenAI constants as
// incubating/deprecated, so the names are spelled out here.

/** `gen_ai.operation.name` values. */
export const GEN_AI_OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** GenAI semantic-convention attribute names used on agentchart's spans. */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
} as const;

/** GenAI content events (recorded only with `captureContent: true`). */
export const GEN_AI_EVENT = {
  systemMessage: "gen_ai.system.message",
  userMessage: "gen_ai.user.message",
  toolMessage: "gen_ai.tool.message",
  choice: "gen_ai.choice",
} as const;

/** `error.type`, the general OpenTelemetry error attribute. */
export const ERROR_TYPE = "error.type";

/** agentchart's own attributes and events (no GenAI convention covers them). */
export const AGENTCHART = {
  /** Attribute of the `agentchart.state` event: the new state value (`"streaming"`, `"executing"`…). */
  state: "agentchart.state",
  /** Attribute of the `agentchart.state` event: the machine that changed state (`agent`, `toolCall`). */
  machine: "agentchart.machine",
  /** Dollar cost of one model call (`usage.cost.total`). */
  costUsd: "agentchart.usage.cost_usd",
  /** Event of a chat span: the first streamed delta arrived. */
  firstToken: "agentchart.first_token",
  /** Milliseconds from the request to the first streamed delta. */
  timeToFirstTokenMs: "agentchart.time_to_first_token_ms",
  /** Events of a tool span around an approval. */
  approvalRequested: "agentchart.tool.approval_requested",
  approvalGranted: "agentchart.tool.approval_granted",
  /** Milliseconds a tool call waited for its approval. */
  approvalWaitMs: "agentchart.tool.approval_wait_ms",
  /** The harness phase of a phase span (`compaction`, `branchSummary`, `retry`). */
  harnessPhase: "agentchart.harness.phase",
  compactionReason: "agentchart.compaction.reason",
  retryAttempt: "agentchart.retry.attempt",
  retryMaxRetries: "agentchart.retry.max_retries",
  retryDelayMs: "agentchart.retry.delay_ms",
  /** Number of turns (model calls) a run made. */
  turns: "agentchart.turns",
  /** Of a sub-agent's run span: the tool call ids from the root down to it (`["call_1", "call_7"]`). */
  agentPath: "agentchart.agent.path",
  /** Of a run span with a budget: what the run used, at its end (`agent_end.budgetUsage`). */
  budgetTokens: "agentchart.budget.usage.tokens",
  budgetCostUsd: "agentchart.budget.usage.cost_usd",
  budgetModelCalls: "agentchart.budget.usage.model_calls",
  budgetToolCalls: "agentchart.budget.usage.tool_calls",
  budgetTurns: "agentchart.budget.usage.turns",
  budgetWallMs: "agentchart.budget.usage.wall_ms",
  /** Events of a run span: a limit reached (`budget_exceeded`) or a loop breaker (`loop_detected`). */
  budgetExceeded: "agentchart.budget_exceeded",
  loopDetected: "agentchart.loop_detected",
  /**
   * Attributes of those events: the limit's name, its value, what was used, and what happens; for a
   * sub-agent's call held by this run's ledger, the path down to that sub-agent (`/` joined).
   */
  budgetName: "agentchart.budget.name",
  budgetLimit: "agentchart.budget.limit",
  budgetUsed: "agentchart.budget.used",
  budgetAction: "agentchart.budget.action",
  budgetSubAgentPath: "agentchart.budget.sub_agent_path",
} as const;

/** `error.type` values agentchart sets (besides exception class names from throwing tools). */
export const ERROR_TYPE_VALUE = {
  providerError: "provider_error",
  aborted: "aborted",
  toolError: "tool_error",
  compactionFailed: "compaction_failed",
} as const;
