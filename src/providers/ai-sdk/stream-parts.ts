import type {
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { StopReason } from "../../types/messages.js";
import type { PartialMessageBuilder } from "../partial-message.js";
import { redactedDataFrom, signatureFrom } from "./provider-metadata.js";

/** How a reply ended, once its `finish` part arrived. */
export interface FinishedReply {
  stopReason: StopReason;
  usage: LanguageModelV3Usage;
  /** For a reply that stopped with an error or by the content filter: why, for `errorMessage`. */
  errorMessage?: string;
}

/**
 * Applies the parts of one AI SDK stream to a `PartialMessageBuilder`:
 *
 * - text and reasoning parts open, fill and close blocks by the provider's part id; signatures in
 *   their provider metadata (Anthropic's `signature`, Gemini's `thoughtSignature`) are kept on the
 *   block (`signatureFrom`), Anthropic's redacted reasoning becomes a redacted thinking block;
 * - `tool-input-*` parts stream a call's JSON arguments; `tool-call` ends it with the complete text
 *   (providers that send whole calls send only that);
 * - calls the provider ran itself (`providerExecuted`: web search, code execution) and their results
 *   are not the agent's to run, and are left out, as are files, sources and raw chunks;
 * - `finish` is remembered (`finished`); an `error` part is returned to the caller, who ends the reply.
 */
export class StreamPartHandler {
  /** The `finish` part's content, once it arrived. */
  finished: FinishedReply | undefined;
  private readonly providerExecuted = new Set<string>();

  constructor(
    private readonly builder: PartialMessageBuilder,
    private readonly family: string,
  ) {}

  /** Applies one part; returns the error an `error` part carries (the reply must end), else `undefined`. */
  onPart(part: LanguageModelV3StreamPart): { error: unknown } | undefined {
    const builder = this.builder;
    switch (part.type) {
      case "text-start":
      case "text-delta": {
        const delta = part.type === "text-delta" ? part.delta : "";
        if (delta !== "") builder.appendText(delta, part.id);
        const signature = signatureFrom(part.providerMetadata, this.family);
        if (signature !== undefined) builder.sign("text", part.id, signature);
        return undefined;
      }
      case "text-end":
        builder.closeBlock("text", part.id);
        return undefined;
      case "reasoning-start":
      case "reasoning-delta": {
        const redacted = redactedDataFrom(part.providerMetadata, this.family);
        if (redacted !== undefined) {
          builder.addRedactedThinking(redacted, part.id);
          return undefined;
        }
        const delta = part.type === "reasoning-delta" ? part.delta : "";
        if (delta !== "") builder.appendThinking(delta, part.id);
        const signature = signatureFrom(part.providerMetadata, this.family, true);
        if (signature !== undefined) builder.sign("thinking", part.id, signature);
        return undefined;
      }
      case "reasoning-end":
        builder.closeBlock("thinking", part.id);
        return undefined;
      case "tool-input-start":
        if (part.providerExecuted) this.providerExecuted.add(part.id);
        else builder.upsertToolCall(part.id, part.id, part.toolName);
        return undefined;
      case "tool-input-delta":
        if (!this.providerExecuted.has(part.id)) builder.appendToolCallArguments(part.id, part.delta);
        return undefined;
      case "tool-call": {
        if (part.providerExecuted || this.providerExecuted.has(part.toolCallId)) return undefined;
        builder.upsertToolCall(part.toolCallId, part.toolCallId, part.toolName);
        const signature = signatureFrom(part.providerMetadata, this.family);
        if (signature !== undefined) builder.signToolCall(part.toolCallId, signature);
        builder.endToolCall(part.toolCallId, part.input);
        return undefined;
      }
      case "finish":
        this.finished = finishedReply(part.finishReason, part.usage);
        return undefined;
      case "error":
        return { error: part.error };
      default:
        return undefined;
    }
  }
}

function finishedReply(reason: LanguageModelV3FinishReason, usage: LanguageModelV3Usage): FinishedReply {
  const raw = reason.raw === undefined ? "" : ` (${reason.raw})`;
  switch (reason.unified) {
    case "length":
      return { stopReason: "length", usage };
    case "tool-calls":
      return { stopReason: "toolUse", usage };
    case "content-filter":
      return {
        stopReason: "error",
        usage,
        errorMessage: `the provider's content filter stopped the reply${raw}`,
      };
    case "error":
      return { stopReason: "error", usage, errorMessage: `the provider ended the reply with an error${raw}` };
    default:
      return { stopReason: "stop", usage };
  }
}
