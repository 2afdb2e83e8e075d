import { z } from "zod";
import { notJsonIssue, type OutputCandidate, type OutputVerdict } from "../loop/output-steps.js";
import { runtimeOf } from "../machines/agent/agent.runtime.js";
import { errorText } from "../types/error-text.js";
import type { OutputIssue } from "../types/output.js";
import type { OutputRequest } from "../types/stream.js";
import { fromPromiseUntilStopped } from "../xstate/promise-logic.js";

/** What `validatingOutput` asks: the reply's candidate value and the schema it must match. */
export interface OutputValidation {
  candidate: OutputCandidate;
  request: OutputRequest;
}

// Schemas rebuilt from a persisted run's JSON Schema (a restore that was given no zod schema).
const rebuilt = new WeakMap<object, z.ZodType>();

/**
 * The actor of the `validatingOutput` state: parses the candidate with the run's zod schema (refinements
 * may be async) and answers the verdict with zod's issues (a check that throws is one issue naming the
 * error: the actor never rejects). Without a zod schema in the runtime (a
 * restored agent given none), the schema is rebuilt from the persisted JSON Schema (`z.fromJSONSchema`).
 * It needs no stop signal, so it makes none.
 */
export const validateOutputActor = fromPromiseUntilStopped<OutputVerdict, OutputValidation>(
  async ({ input, self }) => {
    const { candidate } = input;
    if (candidate.via === "text" && candidate.parseError !== undefined)
      return { ok: false, issues: [notJsonIssue(candidate.parseError)] };
    try {
      const schema = runtimeOf(self).outputSchema ?? schemaFromJson(input.request.schema);
      const parsed = await schema.safeParseAsync(candidate.value);
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, issues: parsed.error.issues.map(toIssue) };
    } catch (error) {
      return { ok: false, issues: [{ path: [], message: `the schema check threw: ${errorText(error)}` }] };
    }
  },
);

function schemaFromJson(schema: Record<string, unknown>): z.ZodType {
  let zod = rebuilt.get(schema);
  if (!zod) {
    zod = z.fromJSONSchema(schema as never);
    rebuilt.set(schema, zod);
  }
  return zod;
}

function toIssue(issue: { path: PropertyKey[]; message: string }): OutputIssue {
  return {
    path: issue.path.map((key) => (typeof key === "number" ? key : String(key))),
    message: issue.message,
  };
}
