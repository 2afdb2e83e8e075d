import type { Subscription } from "rxjs";
import { checkBudget } from "../loop/budget-check.js";
import type { AgentBudget, BudgetExceeded, BudgetLimits, BudgetName, BudgetUsage } from "../types/budget.js";
import { AgentPathLabels, agentPathOf } from "./agent-path-labels.js";
import { CliError } from "./cli-error.js";
import type { AgentRunner } from "./runner.js";
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

/** The question asked at a pause (a limit reached, or a loop breaker). */
function pauseQuestion(exceeded: BudgetExceeded, where: string): string {
  const what =
    exceeded.toolName !== undefined ? `${exceeded.budget} for ${exceeded.toolName}` : exceeded.budget;
  return `${what} reached (${exceeded.used} of ${exceeded.limit})${where}: [r]aise to ${raisedLimit(exceeded)} / [c]ontinue once / [s]top? `;
}

/** The limit a plain "raise" answer sets: twice the limit (at least one more than used). */
function raisedLimit(exceeded: BudgetExceeded): number {
  return Math.max(exceeded.limit * 2, Math.ceil(exceeded.used) + 1);
}

/**
 * Watches the runner's budget: at a pause (a `budget_exceeded` or `loop_detected` event with
 * `action: "pause"`, the root's or a sub-agent's) it writes the status line and asks — `r`/`raise`
 * raises that limit (to twice its value, or to the number after it: `r 50`), `c`/`continue` lets the
 * held call through once, anything else (and no answer) stops the run; at each run's end it writes
 * the status line. `limits`: the budget the CLI set, kept up to date with the raises it makes.
 *
 * Contract: never throws; an answer for a run that stopped waiting meanwhile is dropped.
 *
 * @example
 * ```ts
 * declare const runner: Parameters<typeof watchBudget>[0];
 * const watching = watchBudget(runner, { ask: async () => "c", write: (line) => console.error(line), limits: {} });
 * watching.unsubscribe();
 * ```
 */
export function watchBudget(
  runner: AgentRunner,
  options: { ask: AskLine | undefined; write: (line: string) => void; limits: BudgetLimits },
): Subscription {
  let queue: Promise<void> = Promise.resolve();
  const limits: BudgetLimits = { ...options.limits };
  const labels = new AgentPathLabels();
  return runner.events$.subscribe((event) => {
    labels.observe(event);
    if (event.type === "agent_end" && event.budgetUsage && agentPathOf(event).length === 0)
      options.write(budgetStatusLine(event.budgetUsage, limits));
    if ((event.type !== "budget_exceeded" && event.type !== "loop_detected") || event.action !== "pause")
      return;
    const agentPath = agentPathOf(event);
    const where = agentPath.length === 0 ? "" : ` (sub-agent ${labels.trail(agentPath)})`;
    const path = agentPath.length === 0 ? {} : { agentPath };
    queue = queue.then(async () => {
      const answer = options.ask ? await options.ask(pauseQuestion(event, where)) : undefined;
      const [word, number] = (answer ?? "").trim().split(/\s+/);
      try {
        if (/^r(aise)?$/i.test(word ?? "")) {
          const to =
            number !== undefined && Number.isFinite(Number(number)) ? Number(number) : raisedLimit(event);
          runner.raiseBudget({ [event.budget]: to }, path);
          if (agentPath.length === 0) limits[event.budget] = to;
        } else if (/^c(ontinue)?$/i.test(word ?? "")) runner.continuePastBudget(path);
        else runner.abort();
      } catch {
        // The run no longer waits there (aborted meanwhile): nothing to answer.
      }
    });
  });
}
