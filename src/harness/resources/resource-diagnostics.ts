import { errorText } from "../../types/error-text.js";
import type { ResourceDiagnostic } from "./skill-types.js";

/**
 * An `error` diagnostic for a file or folder that could not be read, listed or examined.
 *
 * Contract: synchronous, never throws.
 *
 * ```ts
 * failureDiagnostic("read_failed", "/x/a.md", new Error("EACCES")); // { severity: "error", code: "read_failed", … }
 * ```
 */
export function failureDiagnostic(
  code: ResourceDiagnostic["code"],
  where: string,
  error: unknown,
): ResourceDiagnostic {
  return { severity: "error", code, path: where, message: errorText(error) };
}

/**
 * The diagnostic labelled with the root it came from (unchanged when there is no label).
 *
 * Contract: synchronous, never throws; returns a copy.
 *
 * ```ts
 * withSource(failureDiagnostic("read_failed", "/x/a.md", new Error("EACCES")), "project").source; // "project"
 * ```
 */
export function withSource(diagnostic: ResourceDiagnostic, source: string | undefined): ResourceDiagnostic {
  return source === undefined ? diagnostic : { ...diagnostic, source };
}
