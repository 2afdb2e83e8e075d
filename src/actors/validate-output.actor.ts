import { fromPromise } from "xstate";
import { z } from "zod";
import { notJsonIssue, type OutputCandidate, type OutputVerdict } from "../loop/output-steps.js";
import type { AgentImplementations } from "../machines/agent/agent.implementations.js";
import { errorText } from "../types/error-text.js";
import type { OutputIssue } from "../types/output.js";
import type { OutputRequest } from "../types/stream.js";

/** What `validatingOutput` asks: the reply's candidate value and the schema it must match. */
export interface OutputValidation {
  candidate: OutputCandidate;
  request: OutputRequest;
}

// Schemas rebuilt from a persisted run's JSON Schema (a restore that was given no zod schema).
const rebuilt = new WeakMap<object, z.ZodType>();

/**
 * The actor of the `validatingOutput` state (provided by `createAgentMachine`): parses the candidate with
 * the run's zod schema (refinements may be async) and answers the verdict with zod's issues (a check
 * that throws is one issue naming the error: the actor never rejects). The schema is the one the run
 * was started with (`outputSchemas`), else the agent's `output`, else — a restored run given neither —
 * rebuilt from the persisted JSON Schema (`z.fromJSONSchema`).
 */
export function validateOutputActor(implementations: AgentImplementations) {
  return fromPromise<OutputVerdict, OutputValidation>(async ({ input }) => {
    const { candidate } = input;
    if (candidate.via === "text" && candidate.parseError !== undefined)
      return { ok: false, issues: [notJsonIssue(candidate.parseError)] };
    try {
      const schema =
        implementations.outputSchemas.get(input.request.schema) ??
        implementations.output ??
        schemaFromJson(input.request.schema);
      const parsed = await schema.safeParseAsync(candidate.value);
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, issues: parsed.error.issues.map(toIssue) };
    } catch (error) {
      return { ok: false, issues: [{ path: [], message: `the schema check threw: ${errorText(error)}` }] };
    }
  });
}

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
