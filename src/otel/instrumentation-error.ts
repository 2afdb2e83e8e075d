/** Why `instrument` refused a target. */
export type InstrumentationErrorCode = "already_instrumented" | "invalid_target";

/** Thrown by `instrument` for a target it cannot trace; nothing about the target was changed. */
export class InstrumentationError extends Error {
  readonly code: InstrumentationErrorCode;

  constructor(code: InstrumentationErrorCode, message: string) {
    super(message);
    this.name = "InstrumentationError";
    this.code = code;
  }
}
