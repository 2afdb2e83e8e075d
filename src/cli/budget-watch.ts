import type { Subscription } from "rxjs";
import type { AddressedCommand, AgentAddress } from "../commands/addressed-command.js";
import type { AgentSurface } from "../harness/agent-surface.js";
import { checkBudget } from "../loop/budget-check.js";
import type { AgentBudget, BudgetExceeded, BudgetLimits, BudgetName, BudgetUsage } from "../types/budget.js";
import { AgentPathLabels, agentPathOf } from "./agent-path-labels.js";
import { CliError } from "./cli-error.js";
import { sendCommand } from "./send-command.js";
import type { AskLine } from "./tool-approvals.js";

/**
 * Parses `--budget`: a JSON object of limits (`{"maxModelCalls":20,"maxCostUsd":0.5}`), checked like
 * any budget.
 *
 * Contract: returns the budget; throws `CliError` (exit code 2) naming what is wrong.
 *
 * @example
 * ```ts
 * parseBudgetOption('{"maxModelCalls":20,"onExceeded":"pause"}'); // { maxModelCalls: 20, onExceeded: "pause" }
 * ```
 */
export function parseBudgetOption(text: string): AgentBudget {
  let budget: unknown;
  try {
    budget = JSON.parse(text);
  } catch {
    throw new CliError(`--budget: not JSON: ${text} (e.g. --budget '{"maxModelCalls":20}')`, 2);
  }
  if (typeof budget !== "object" || budget === null || Array.isArray(budget))
    throw new CliError(`--budget: a JSON object of limits, e.g. '{"maxModelCalls":20}' (got ${text})`, 2);
  try {
    checkBudget(budget as AgentBudget, undefined, "--budget");
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  return budget as AgentBudget;
}

/** The counts of the status line: a label, the usage it shows, and the limit it is held against. */
const COUNTS: readonly [
  string,
  (usage: BudgetUsage) => number,
  BudgetName | undefined,
  (n: number) => string,
][] = [
  ["model calls", (usage) => usage.modelCalls, "maxModelCalls", String],
  ["turns", (usage) => usage.turns, "maxTurns", String],
  ["tool calls", (usage) => usage.toolCalls, "maxToolCalls", String],
  ["tokens", (usage) => usage.tokens, "maxTokens", (n) => n.toLocaleString("en-US")],
  ["cost", (usage) => usage.costUsd, "maxCostUsd", (n) => `$${n.toFixed(4)}`],
  ["wall", (usage) => usage.wallMs, "maxWallMs", (n) => `${(n / 1000).toFixed(1)} s`],
];

/**
 * The CLI's budget status line: each count of `usage`, against its limit when `limits` sets one.
 *
 * Contract: pure; one line, no newline.
 *
 * @example
 * ```ts
 * budgetStatusLine(
 *   { tokens: 1200, costUsd: 0.01, modelCalls: 3, toolCalls: 2, toolCallsByTool: {}, turns: 3, wallMs: 2100 },
 *   { maxModelCalls: 20 },
 * ); // "budget: model calls 3/20 · turns 3 · tool calls 2 · tokens 1,200 · cost $0.0100 · wall 2.1 s"
 * ```
 */
export function budgetStatusLine(usage: BudgetUsage, limits: BudgetLimits): string {
  const parts = COUNTS.map(([label, used, name, format]) => {
    const limit = name ? limits[name] : undefined;
    return `${label} ${format(used(usage))}${limit === undefined ? "" : `/${format(limit)}`}`;
  });
  return `budget: ${parts.join(" · ")}`;
}

/**
 * The question asked at a pause (a limit reached, or a loop breaker); `where` names a sub-agent.
 *
 * Contract: pure.
 */
export function pauseQuestion(exceeded: BudgetExceeded, where: string): string {
  const what =
    exceeded.toolName !== undefined ? `${exceeded.budget} for ${exceeded.toolName}` : exceeded.budget;
  return `${what} reached (${exceeded.used} of ${exceeded.limit})${where}: [r]aise to ${raisedLimit(exceeded)} / [c]ontinue once / [s]top? `;
}

/** The limit a plain "raise" answer sets: twice the limit (at least one more than used). */
function raisedLimit(exceeded: BudgetExceeded): number {
  return Math.max(exceeded.limit * 2, Math.ceil(exceeded.used) + 1);
}

/**
 * The command an answer at a pause gives (`RAISE_BUDGET`, `CONTINUE_ONCE`, `ABORT`), or the line
 * that says why a raise's number cannot be a limit (the question is asked again). In process
 * (`watchBudget`) and for a run parked on a PostgreSQL worker (`agentchart --database-url`).
 *
 * Contract: pure.
 */
export function pauseAnswer(
  answer: string | undefined,
  exceeded: BudgetExceeded,
  address: AgentAddress,
): AddressedCommand | string {
  const [word = "", number] = (answer ?? "").trim().split(/\s+/);
  if (/^c(ontinue)?$/i.test(word)) return { type: "CONTINUE_ONCE", ...address };
  if (!/^r(aise)?$/i.test(word)) return { type: "ABORT" };
  const to = number === undefined ? raisedLimit(exceeded) : Number(number);
  if (!Number.isFinite(to) || to < 0)
    return `not a limit: ${number} (a number, e.g. r ${raisedLimit(exceeded)})`;
  return { type: "RAISE_BUDGET", limits: { [exceeded.budget]: to }, ...address };
}

/**
 * Watches the harness's budget: at a pause (a `budget_exceeded` or `loop_detected` event with
 * `action: "pause"`, the root's or a sub-agent's) it writes the status line and asks — `r`/`raise`
 * sends `RAISE_BUDGET` for that limit (twice its value, or the number after it: `r 50`),
 * `c`/`continue` sends `CONTINUE_ONCE`, anything else (and no answer) `ABORT`; a sub-agent's with its
 * `agentPath`. At each run's end it writes the status line. `limits`: the budget the CLI set (not
 * changed: the watcher keeps its own copy with the root's raises, which the status line shows).
 *
 * Contract: never throws; an answer the harness refuses (the run stopped waiting meanwhile, a raised
 * limit that is not a number) is written as one line.
 *
 * @example
 * ```ts
 * const watching = watchBudget(harness, { ask: async () => "c", write: (line) => console.error(line), limits: {} });
 * watching.unsubscribe();
 * ```
 */
export function watchBudget(
  surface: AgentSurface,
  options: { ask: AskLine | undefined; write: (line: string) => void; limits: BudgetLimits },
): Subscription {
  let queue: Promise<void> = Promise.resolve();
  const limits: BudgetLimits = { ...options.limits };
  const labels = new AgentPathLabels();
  return surface.events$.subscribe((event) => {
    labels.observe(event);
    if (event.type === "agent_end" && event.budgetUsage && agentPathOf(event).length === 0)
      options.write(budgetStatusLine(event.budgetUsage, limits));
    if ((event.type !== "budget_exceeded" && event.type !== "loop_detected") || event.action !== "pause")
      return;
    const agentPath = agentPathOf(event);
    const where = agentPath.length === 0 ? "" : ` (sub-agent ${labels.trail(agentPath)})`;
    const address = agentPath.length === 0 ? {} : { agentPath: [...agentPath] };
    queue = queue.then(async () => {
      let command: AddressedCommand | string;
      for (;;) {
        const answer = options.ask ? await options.ask(pauseQuestion(event, where)) : undefined;
        command = pauseAnswer(answer, event, address);
        if (typeof command !== "string") break;
        options.write(command);
      }
      if (
        sendCommand(surface, command, options.write) &&
        command.type === "RAISE_BUDGET" &&
        !command.agentPath
      )
        Object.assign(limits, command.limits);
    });
  });
}
