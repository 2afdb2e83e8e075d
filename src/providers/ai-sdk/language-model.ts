import type { LanguageModelV3 } from "@ai-sdk/provider";
import { AiSdkSetupError } from "./ai-sdk-setup-error.js";

/** The AI SDK language model specification this adapter speaks (`@ai-sdk/provider` 3.x, the `ai` 6 line). */
export const SUPPORTED_SPECIFICATION = "v3";

/**
 * Checks that `value` is an AI SDK language model of the specification this adapter speaks, and
 * returns it typed as one.
 *
 * Contract: synchronous; throws `AiSdkSetupError` with code `not_an_ai_sdk_model` for anything
 * without a `doStream` method (a model id string gets a hint to call the provider function), and
 * `unsupported_specification` naming the version it found for a model of another specification.
 *
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * const model = asLanguageModelV3(anthropic("claude-sonnet-4-5"));
 * ```
 */
export function asLanguageModelV3(value: unknown): LanguageModelV3 {
  if (typeof value === "string") {
    throw new AiSdkSetupError(
      "not_an_ai_sdk_model",
      `fromAiSdk expects an AI SDK language model, not the id "${value}": pass the provider's model, ` +
        `e.g. fromAiSdk(anthropic("${value}")) with anthropic from "@ai-sdk/anthropic", or use aiSdkModel({ provider, model }).`,
    );
  }
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof record.doStream !== "function") {
    throw new AiSdkSetupError(
      "not_an_ai_sdk_model",
      `fromAiSdk expects an AI SDK language model (an object with a doStream method, such as ` +
        `anthropic("claude-sonnet-4-5") from "@ai-sdk/anthropic"), got ${describeValue(value)}.`,
    );
  }
  const version = record.specificationVersion;
  if (version !== SUPPORTED_SPECIFICATION) {
    const provider = typeof record.provider === "string" ? ` (provider "${record.provider}")` : "";
    throw new AiSdkSetupError(
      "unsupported_specification",
      `The model${provider} implements the AI SDK language model specification ${JSON.stringify(version ?? null)}; ` +
        `agentchart/ai-sdk speaks "${SUPPORTED_SPECIFICATION}" (LanguageModelV3: @ai-sdk/provider 3.x, the ai 6 line). ` +
        `Install the provider package's line that implements it, e.g. npm install @ai-sdk/anthropic@^3.`,
    );
  }
  return value as LanguageModelV3;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  const keys = Object.keys(value).slice(0, 5);
  const kind = typeof name === "string" && name !== "Object" ? `a ${name}` : "an object";
  return keys.length === 0 ? `${kind} without properties` : `${kind} with ${keys.join(", ")}`;
}
