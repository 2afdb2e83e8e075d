import type { EvalResult } from "../eval-result.js";

/**
 * The eval result as JUnit XML, the shape CI tools read (Jenkins, GitLab, GitHub test reporters):
 * `<testsuites>` → one `<testsuite>` → one `<testcase>` per case (classname: the result's name; time:
 * its samples' latency in seconds), with a `<failure>` per scorer the case failed (type: the scorer,
 * message: its first failing reason) and an `<error>` when a run failed. The dataset score, pass rate
 * and coverage are `<properties>` of the suite.
 *
 * Contract: pure; text is escaped and characters XML 1.0 forbids are dropped.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * writeFileSync("eval-junit.xml", toJunitXml(result));
 * ```
 */
export function toJunitXml(result: EvalResult): string {
  const failures = result.cases.filter((entry) => entry.error === undefined && !entry.passed).length;
  const errors = result.cases.filter((entry) => entry.error !== undefined).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const counts = `tests="${result.cases.length}" failures="${failures}" errors="${errors}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(result.name)}" ${counts} time="${seconds(result.durationMs)}">`,
    `  <testsuite name="${xml(result.name)}" ${counts} skipped="0" time="${seconds(result.durationMs)}" timestamp="${result.startedAt.slice(0, 19)}">`,
    "    <properties>",
    `      <property name="score" value="${result.score}"/>`,
    `      <property name="passRate" value="${result.passRate}"/>`,
    `      <property name="repeats" value="${result.repeats}"/>`,
    `      <property name="coverage" value="${result.coverage.exercised}/${result.coverage.total} transitions"/>`,
    "    </properties>",
  ];
  for (const entry of result.cases) {
    const time = seconds(entry.samples.reduce((sum, sample) => sum + sample.latencyMs, 0));
    const open = `    <testcase name="${xml(entry.caseId)}" classname="${xml(result.name)}" time="${time}"`;
    const body: string[] = [];
    if (entry.error !== undefined) {
      body.push(`      <error message="${xml(entry.error)}" type="run_error">${xml(entry.error)}</error>`);
    }
    for (const score of entry.scores.filter((candidate) => !candidate.passHatK)) {
      const failing = score.samples.find((sample) => !sample.passed);
      const details = score.samples.map(
        (sample, index) => `sample ${index + 1}: ${sample.score} ${sample.reason}`,
      );
      body.push(
        `      <failure message="${xml(failing?.reason ?? "")}" type="${xml(score.scorer)}">${xml(`mean ${score.mean}\n${details.join("\n")}`)}</failure>`,
      );
    }
    lines.push(
      body.length === 0 ? `${open}/>` : `${open}>`,
      ...body,
      ...(body.length === 0 ? [] : ["    </testcase>"]),
    );
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Whether XML 1.0 allows the character: tab, newline, carriage return, and none of the other C0 controls. */
function allowedInXml(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code >= 0x20 ? code !== 0xfffe && code !== 0xffff : code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Text escaped for XML attributes and content, without the characters XML 1.0 forbids. */
function xml(text: string): string {
  return [...text]
    .filter(allowedInXml)
    .join("")
    .replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}
