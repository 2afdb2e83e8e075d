/** What went wrong with an eval's input: a dataset line, a case, an option or a recorded step. */
export type EvalInputErrorCode =
  | "invalid_line"
  | "duplicate_case_id"
  | "empty_dataset"
  | "invalid_option"
  | "invalid_step"
  | "invalid_baseline";

/**
 * Thrown for eval input that cannot be used: a dataset line that does not parse (`line` names it), two
 * cases with one id, an option out of range, a seam step the recording does not hold, a baseline file
 * that is not an eval result. Scorers that throw and agents that fail are not errors of the run: they
 * are reported per case.
 */
export class EvalInputError extends Error {
  override name = "EvalInputError";
  constructor(
    readonly code: EvalInputErrorCode,
    message: string,
    /** The 1-based line of the dataset file, for `invalid_line` and `duplicate_case_id`. */
    readonly line?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
