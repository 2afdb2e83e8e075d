import { createScorer, type Scorer } from "../scorer.js";

/**
 * Scores 1 when the run's final text equals `expected` (default: the case's `expectedOutput`), both
 * trimmed; else 0.
 *
 * Contract: returns a {@link Scorer} named `exactText`; it does not apply (null) to a case without an
 * expected output when `expected` is not given.
 *
 * @example
 * ```ts
 * exactText("Paris");
 * ```
 */
export function exactText(expected?: string): Scorer {
  return createScorer({
    name: "exactText",
    score(run, evalCase) {
      const want = expected ?? evalCase.expectedOutput;
      if (want === undefined) return null;
      return run.text.trim() === want.trim()
        ? { score: 1, reason: "the text is the expected one" }
        : { score: 0, reason: `the text ${quote(run.text)} is not ${quote(want)}` };
    },
  });
}

/**
 * Scores 1 when the run's final text contains `needle` (case-sensitive unless `ignoreCase`); else 0.
 *
 * Contract: returns a {@link Scorer} named `containsText`; never throws.
 *
 * @example
 * ```ts
 * containsText("package.json", { ignoreCase: true });
 * ```
 */
export function containsText(needle: string, options: { ignoreCase?: boolean } = {}): Scorer {
  const fold = (text: string) => (options.ignoreCase ? text.toLowerCase() : text);
  return createScorer({
    name: "containsText",
    score: (run) =>
      fold(run.text).includes(fold(needle))
        ? { score: 1, reason: `the text contains ${quote(needle)}` }
        : { score: 0, reason: `the text ${quote(run.text)} does not contain ${quote(needle)}` },
  });
}

/**
 * Scores 1 when the run's final text matches `pattern`; else 0.
 *
 * Contract: returns a {@link Scorer} named `matchesPattern`; never throws (a global pattern's
 * `lastIndex` is not used).
 *
 * @example
 * ```ts
 * matchesPattern(/\b\d+ entries\b/);
 * ```
 */
export function matchesPattern(pattern: RegExp): Scorer {
  const regex = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  return createScorer({
    name: "matchesPattern",
    score: (run) =>
      regex.test(run.text)
        ? { score: 1, reason: `the text matches ${regex}` }
        : { score: 0, reason: `the text ${quote(run.text)} does not match ${regex}` },
  });
}

const MAX_QUOTE = 120;

function quote(text: string): string {
  const short = text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text;
  return JSON.stringify(short);
}
