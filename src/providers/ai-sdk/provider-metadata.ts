import type { SharedV3ProviderMetadata, SharedV3ProviderOptions } from "@ai-sdk/provider";

/**
 * The name a provider's metadata and options go under: the first part of the model's `provider`
 * ("anthropic.messages" → "anthropic", "google.generative-ai" → "google").
 */
export function providerFamily(provider: string): string {
  const dot = provider.indexOf(".");
  return dot === -1 ? provider : provider.slice(0, dot);
}

/** The provider option that carries a block's signature back, per family. */
function signatureKey(family: string): "signature" | "thoughtSignature" {
  return family === "google" ? "thoughtSignature" : "signature";
}

/**
 * The signature to keep on a block (`thinkingSignature`, `textSignature`, `thoughtSignature`) from
 * the provider metadata a stream part carried: the bare string when the metadata is just the
 * family's signature (Anthropic's `signature`, Gemini's `thoughtSignature`), so that transcripts
 * stay readable and match other providers'. With `whole` (reasoning blocks), other metadata is kept
 * entire, as JSON, and sent back as provider options the way the `ai` package does (OpenAI's
 * encrypted reasoning items); without it, metadata that holds no signature is not kept.
 *
 * Contract: pure, never throws; `undefined` for absent or empty metadata.
 */
export function signatureFrom(
  metadata: SharedV3ProviderMetadata | undefined,
  family: string,
  whole = false,
): string | undefined {
  if (metadata === undefined) return undefined;
  const keys = Object.keys(metadata);
  if (keys.length === 0) return undefined;
  const own = metadata[family] as Record<string, unknown> | undefined;
  const signature = own?.[signatureKey(family)];
  if (
    keys.length === 1 &&
    own !== undefined &&
    Object.keys(own).length === 1 &&
    typeof signature === "string"
  ) {
    return signature;
  }
  if (whole) return JSON.stringify(metadata);
  return typeof signature === "string" ? signature : undefined;
}

/**
 * Provider options that send a kept signature back (the inverse of `signatureFrom`). A redacted
 * thinking block's data goes back as the family's `redactedData`.
 *
 * Contract: pure, never throws; `undefined` when there is no signature.
 */
export function signatureOptions(
  signature: string | undefined,
  family: string,
  redacted = false,
): SharedV3ProviderOptions | undefined {
  if (signature === undefined || signature === "") return undefined;
  if (redacted) return { [family]: { redactedData: signature } };
  if (signature.startsWith("{")) {
    try {
      // JSON text that starts with "{" can only be an object
      return JSON.parse(signature) as SharedV3ProviderOptions;
    } catch {
      // not JSON: a signature that happens to start with "{"
    }
  }
  return { [family]: { [signatureKey(family)]: signature } };
}

/** The family's `redactedData` in a part's metadata (Anthropic's redacted thinking), if any. */
export function redactedDataFrom(
  metadata: SharedV3ProviderMetadata | undefined,
  family: string,
): string | undefined {
  const value = (metadata?.[family] as Record<string, unknown> | undefined)?.redactedData;
  return typeof value === "string" ? value : undefined;
}
