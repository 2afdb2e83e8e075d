/** The limits a run's budget can set (see docs/budgets.md). */
export type BudgetName =
  | "maxTokens"
  | "maxCostUsd"
  | "maxModelCalls"
  | "maxToolCalls"
  | "maxToolCallsPerTool"
  | "maxTurns"
  | "maxWallMs"
  | LoopBreakerName;

/**
 * The limits that break loops (see docs/budgets.md, "Loop breakers"): reaching one emits `loop_detected`
 * instead of `budget_exceeded`, with the same pause / stop / warn choice. They apply to every run with
 * a budget, with defaults (5, 2, 1) when the budget does not set them.
 */
export type LoopBreakerName = "maxIdenticalCalls" | "maxFailedRepeats" | "maxRepeatedReplies";

/**
 * What happens when a call would go past a limit: `pause` (the run waits in a state tagged
 * `awaitingHuman` until `RAISE_BUDGET`, `CONTINUE_ONCE` or `ABORT`), `stop` (the run ends with
 * `stopReason: "budget"`), `warn` (a `budget_exceeded` event, once per limit and run; the run goes on).
 */
export type BudgetAction = "pause" | "stop" | "warn";

/** The limits of a budget, each optional (absent: no limit). Plain data. */
export interface BudgetLimits {
  /** Total tokens (input, output and cache) of the run's model calls, descendants' included. */
  maxTokens?: number;
  /** Dollar cost of the run's model calls (from the model's `cost` prices), descendants' included. */
  maxCostUsd?: number;
  /** Model calls of the run, descendants' included. */
  maxModelCalls?: number;
  /** Tool calls the run starts, descendants' included. */
  maxToolCalls?: number;
  /** Tool calls of any one tool the run starts (this agent's own calls). */
  maxToolCallsPerTool?: number;
  /** Turns of the run (a model call and its tool calls each). */
  maxTurns?: number;
  /**
   * Wall time of the run in milliseconds, measured while it runs in a process: time paused at a budget
   * limit and time between a snapshot and its restore are not counted.
   */
  maxWallMs?: number;
  /** Calls of one tool with identical arguments in the run (default 5): the next identical one is held. */
  maxIdenticalCalls?: number;
  /** Failures of one call (a tool and identical arguments) before it is held when made again (default 2). */
  maxFailedRepeats?: number;
  /** Replies in a row that repeat the previous reply (its text and calls) before the run is held (default 1). */
  maxRepeatedReplies?: number;
}

/** A run's budget: its limits and what happens at each (default `"pause"`). Plain data, persisted. */
export interface AgentBudget extends BudgetLimits {
  onExceeded?: BudgetAction | Partial<Record<BudgetName, BudgetAction>>;
}

/** What a run has used so far, against its budget (JSON data). */
export interface BudgetUsage {
  tokens: number;
  costUsd: number;
  modelCalls: number;
  toolCalls: number;
  /** Tool calls started, by tool name (this agent's own). */
  toolCallsByTool: Record<string, number>;
  turns: number;
  /** Wall time used (milliseconds), as of the run's last check point (a check, a pause, a restore). */
  wallMs: number;
}

/** A limit reached: which, its value, what was used, what happens, and the tool for a per-tool limit. */
export interface BudgetExceeded {
  budget: BudgetName;
  limit: number;
  used: number;
  action: BudgetAction;
  /** The call that would have gone past the limit is a model call or a call of this tool. */
  before: "modelCall" | "toolCall";
  toolName?: string;
  /** For `maxTokens` / `maxCostUsd`: what the held model call would have reserved (its request's estimate). */
  estimate?: number;
  /**
   * The held call is a sub-agent's, reserved against this run's ledger: the tool call ids from the agent
   * that reports the limit down to that sub-agent.
   */
  subAgentPath?: string[];
}

/** A run held at a budget limit or a loop breaker (see docs/budgets.md), at any depth of the tree. */
export type BudgetPause = BudgetExceeded & {
  /** The run is a sub-agent's: the tool call ids from the root down to it. */
  agentPath?: string[];
};

/** What a model call is expected to use, reserved before it starts: its request's estimate. */
export interface RequestEstimate {
  tokens: number;
  costUsd: number;
}

/**
 * A sub-agent's call asked of its ancestors' ledgers before it starts (see docs/budgets.md,
 * "Sub-agents"): it climbs from the sub-agent to each ancestor whose run has a budget, and each admits,
 * holds (`pause`) or refuses (`stop`) it. Plain data.
 */
export interface BudgetReservation {
  /** The tool call ids from the agent it has reached down to the sub-agent whose call it is. */
  path: string[];
  /** A model call (with its request's estimate) or a call of the tool `toolName`. */
  before: "modelCall" | "toolCall";
  toolName?: string;
  estimate?: RequestEstimate;
}

/** An ancestor's answer to a reservation: the call may start, or a `stop` limit refused it. */
export type ReservationAnswer = { granted: true } | { granted: false; exceeded: BudgetExceeded };

/** A run's ledger: its limits (raised by `RAISE_BUDGET`), what it used, and where it stands. */
export interface BudgetLedger {
  budget: AgentBudget;
  usage: BudgetUsage;
  /** Limits already reported with `warn` in this run (each once). */
  warned: BudgetName[];
  /** The limit the run waits at (`pause`), until a raise or a continue-once. */
  paused?: BudgetExceeded;
  /** A `stop` limit refused a tool call: the run ends at its next model call. */
  stoppedBy?: BudgetExceeded;
  /** `CONTINUE_ONCE` arrived: the next check lets its call through, whatever the limits. */
  passOnce?: boolean;
  /** When (epoch ms) the run's wall time was last added to `usage.wallMs`; absent while it is paused. */
  clockedAt?: number;
  /** The estimate the model call in flight reserved, until its reply settles it with the reported usage. */
  reserved?: RequestEstimate;
  /**
   * The estimates sub-agents' model calls in flight reserved, by the path down to the sub-agent (`/`
   * joined), until their replies come up and settle them.
   */
  reservedBelow?: Record<string, RequestEstimate>;
  /** Sub-agents' calls held while this run waits at a limit: answered after a raise or a continue-once. */
  held?: BudgetReservation[];
  /** The loop breakers' memory: per call (a tool and its canonical arguments), times made and failed. */
  calls?: Record<string, { made: number; failed: number }>;
  /** The last reply (its text and calls, canonical), and how many replies in a row repeated it. */
  lastReply?: string;
  replyRepeats?: number;
}

/** Why a budget was refused (a command to a run that does not wait at a limit gets `CommandError`). */
export type BudgetErrorCode = "invalid_budget" | "no_model_price";

/** Error thrown by a budget that cannot be set or a budget command that does not apply. Match on `code`. */
export class BudgetError extends Error {
  override readonly name = "BudgetError";
  readonly code: BudgetErrorCode;

  constructor(code: BudgetErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
