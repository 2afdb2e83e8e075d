import { Allow, parse as parsePartialJson } from "partial-json";
import { errorText } from "../types/error-text.js";
import type { ToolCall } from "../types/messages.js";

/** How a tool call's complete arguments text parsed: the object, or the parser's message. */
export type ArgumentsParse = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * Parses a tool call's complete JSON arguments (strict `JSON.parse`); an empty text means "no
 * arguments". Never throws: malformed JSON, or JSON that is not an object, gives `ok: false` with a
 * message naming the problem.
 */
export function parseToolCallArguments(json: string): ArgumentsParse {
  if (json.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(json);
    if (!isPlainObject(value)) return { ok: false, error: "arguments must be a JSON object" };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}

/** What `StreamingArguments.end` does with arguments that are not valid JSON. */
export type MalformedArgumentsPolicy =
  /** `arguments: {}` plus `invalidArguments` (the model finished a call it got wrong). */
  | "mark"
  /** `arguments: {}` only (a reply cut at "length": the loop reports the call as truncated). */
  | "empty"
  /** The best-effort parse so far, as shown while streaming (a reply that failed or was abandoned). */
  | "partial";

/**
 * The arguments of one tool call while their JSON text streams in. From construction until `end`,
 * the block's `arguments` is an accessor returning a best-effort parse (`partial-json`) of the text
 * received so far — `{}` until the first key shows. The text is parsed on the first read after it
 * changed, so deltas nobody looks at cost a string append; a text that stops parsing midway keeps
 * the last result. Assigning `arguments` ends the accessor with the assigned value; `end` ends it
 * with the strict parse of the full text, so finished messages hold plain data only.
 */
export class StreamingArguments {
  #text = "";
  #parsedLength = 0;
  #parsed: Record<string, unknown> = {};

  constructor(private readonly block: ToolCall) {
    Object.defineProperty(block, "arguments", {
      enumerable: true,
      configurable: true,
      get: () => this.#current(),
      set: (value: Record<string, unknown>) => this.#settle(value),
    });
  }

  /** The JSON text received so far. */
  get text(): string {
    return this.#text;
  }

  /** Appends a fragment of the JSON text. */
  append(delta: string): void {
    this.#text += delta;
  }

  /** Replaces the whole text (a server that sends the complete arguments at the end). */
  replace(text: string): void {
    if (text === this.#text) return;
    this.#text = text;
    this.#parsedLength = -1;
  }

  /**
   * Ends the stream: `arguments` becomes the strict parse of the text. Text that does not parse
   * gives what `policy` says. Returns whether the text parsed.
   */
  end(policy: MalformedArgumentsPolicy): boolean {
    const parsed = parseToolCallArguments(this.#text);
    this.#settle(parsed.ok ? parsed.value : policy === "partial" ? this.#current() : {});
    if (!parsed.ok && policy === "mark") {
      this.block.invalidArguments = { raw: this.#text, error: parsed.error };
    }
    return parsed.ok;
  }

  #current(): Record<string, unknown> {
    if (this.#parsedLength !== this.#text.length) {
      this.#parsedLength = this.#text.length;
      try {
        const value: unknown = this.#text.trim() === "" ? {} : parsePartialJson(this.#text, Allow.ALL);
        if (isPlainObject(value)) this.#parsed = value;
      } catch {
        // Not parsable as a prefix of JSON: keep what showed last.
      }
    }
    return this.#parsed;
  }

  #settle(value: Record<string, unknown>): void {
    Object.defineProperty(this.block, "arguments", {
      value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
