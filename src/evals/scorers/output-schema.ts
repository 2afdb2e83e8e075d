import type { z } from "zod";
import { issuesText } from "../../agent/persisted-agent-format.js";
import { createScorer, type Scorer } from "../scorer.js";

/**
 * Scores 1 when the run's typed output (or, for an agent without an `output` schema, its final text
 * parsed as JSON) satisfies `schema`; else 0 with zod's issues as the reason.
 *
 * Contract: returns a {@link Scorer} named `matchesSchema`; never throws.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * matchesSchema(z.object({ city: z.string(), celsius: z.number() }));
 * ```
 */
export function matchesSchema(schema: z.ZodType): Scorer {
  return createScorer({
    name: "matchesSchema",
    score(run) {
      let value = run.output;
      if (value === undefined) {
        try {
          value = JSON.parse(run.text);
        } catch {
          return { score: 0, reason: "the run has no typed output and its text is not JSON" };
        }
      }
      const parsed = schema.safeParse(value);
      return parsed.success
        ? { score: 1, reason: "the output matches the schema" }
        : { score: 0, reason: `the output does not match the schema: ${issuesText(parsed.error.issues)}` };
    },
  });
}
