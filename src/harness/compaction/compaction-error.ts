/**
 * Why a compaction or branch summary could not be produced:
 * - `nothing_to_compact`: the path is empty, ends in a compaction, or everything fits in the kept part;
 * - `invalid_preparation`: the preparation has no `firstKeptEntryId`;
 * - `summarization_failed`: the summarising model failed (the message says why);
 * - `aborted`: the signal was aborted.
 */
export type CompactionErrorCode =
  | "nothing_to_compact"
  | "invalid_preparation"
  | "summarization_failed"
  | "aborted";

/** A failed compaction or branch summary. Nothing was written to the session. */
export class CompactionError extends Error {
  override readonly name = "CompactionError";

  constructor(
    readonly code: CompactionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True for a {@link CompactionError}, optionally of one code. */
export function isCompactionError(error: unknown, code?: CompactionErrorCode): error is CompactionError {
  return error instanceof CompactionError && (code === undefined || error.code === code);
}
