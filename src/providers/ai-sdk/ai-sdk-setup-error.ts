/** What went wrong when an AI SDK model was set up for agentchart (see `AiSdkSetupError`). */
export type AiSdkSetupErrorCode =
  /** The value given to `fromAiSdk` is not an AI SDK language model (no `doStream`). */
  | "not_an_ai_sdk_model"
  /** The model implements a specification version this adapter does not speak. */
  | "unsupported_specification"
  /** `aiSdkModel` was asked for a provider it does not know by name. */
  | "unknown_provider"
  /** No API key was given and the provider's environment variable is not set. */
  | "missing_api_key";

/**
 * Thrown at setup time (`fromAiSdk`, `aiSdkModel`), before any request is sent, with a message
 * that names the fix.
 */
export class AiSdkSetupError extends Error {
  override readonly name = "AiSdkSetupError";

  constructor(
    readonly code: AiSdkSetupErrorCode,
    message: string,
  ) {
    super(message);
  }
}
