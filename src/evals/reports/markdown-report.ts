import type { EvalResult } from "../eval-result.js";
import type { EvalDiff } from "./baseline-diff.js";
import { reportContent } from "./report-tables.js";

/**
 * The eval result as a Markdown report (for a CI job summary or a pull request comment): the score,
 * per scorer, per case, the failures, the diff against a baseline when given, and the agent machine's
 * transitions no case exercised.
 *
 * Contract: pure; table cells have `|` and newlines escaped.
 *
 * @example
 * ```ts
 * import { readFileSync, writeFileSync } from "node:fs";
 * import { diffEvalResults, parseEvalResult } from "agentchart/evals";
 * const baseline = parseEvalResult(readFileSync("eval-baseline.json", "utf8"));
 * writeFileSync(process.env.GITHUB_STEP_SUMMARY!, toMarkdownReport(result, diffEvalResults(result, baseline)));
 * ```
 */
export function toMarkdownReport(result: EvalResult, diff?: EvalDiff): string {
  const content = reportContent(result, diff);
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const lines = [`# ${content.title}`, "", ...content.summary.map((line) => `- ${line}`)];
  for (const table of content.tables) {
    lines.push("", `## ${table.title}`, "");
    lines.push(`| ${table.head.map(cell).join(" | ")} |`, `| ${table.head.map(() => "---").join(" | ")} |`);
    for (const row of table.rows) lines.push(`| ${row.map(cell).join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}
