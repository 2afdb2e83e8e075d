import type { EvalResult } from "../eval-result.js";
import type { EvalDiff } from "./baseline-diff.js";
import { reportContent } from "./report-tables.js";

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const html = (text: string) => text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);

/**
 * The eval result as a self-contained HTML page (no script, no external resource): the same content
 * as the Markdown report.
 *
 * Contract: pure; all text is escaped.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * writeFileSync("eval-report.html", toHtmlReport(result));
 * ```
 */
export function toHtmlReport(result: EvalResult, diff?: EvalDiff): string {
  const content = reportContent(result, diff);
  const parts = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${html(content.title)}</title>`,
    "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}" +
      "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}</style>",
    "</head><body>",
    `<h1>${html(content.title)}</h1>`,
    `<ul>${content.summary.map((line) => `<li>${html(line)}</li>`).join("")}</ul>`,
  ];
  for (const table of content.tables) {
    parts.push(`<h2>${html(table.title)}</h2>`, "<table>");
    parts.push(`<tr>${table.head.map((cell) => `<th>${html(cell)}</th>`).join("")}</tr>`);
    for (const row of table.rows)
      parts.push(`<tr>${row.map((cell) => `<td>${html(cell)}</td>`).join("")}</tr>`);
    parts.push("</table>");
  }
  parts.push("</body></html>", "");
  return parts.join("\n");
}
