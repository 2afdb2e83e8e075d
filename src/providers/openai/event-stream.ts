import { ServerStreamError } from "../provider-errors.js";

/** How much of a body that held no events is quoted in the error (characters). */
const EXCERPT_LENGTH = 300;
/** Text outside SSE fields kept to be read as a bare JSON error body (characters). */
const UNFRAMED_LIMIT = 16_384;

/**
 * Decodes a streamed HTTP body (Server-Sent Events of JSON payloads, as both OpenAI APIs send them)
 * into the parsed payloads, in order, and turns every in-stream error framing real servers use into
 * a thrown `ServerStreamError` carrying the server's message and code:
 *
 * - `data: {"error": …}` (OpenAI, current llama.cpp, TGI);
 * - `data: {"object": "error", …}` (vLLM-style error chunks);
 * - `event: error` with a JSON `data:` (DashScope throttling, gateways);
 * - an `error:` field (llama.cpp builds through 2025);
 * - a bare JSON error body without SSE framing (proxies in front of llama-server).
 *
 * The stream ends at `data: [DONE]` or at the end of the body. A body that held no event at all but
 * some text throws `ServerStreamError` (code `not_an_event_stream`) quoting its start.
 *
 * Contract: async; throws `ServerStreamError` as above, `SyntaxError` for a `data:` payload that is not
 * JSON, and whatever reading the body throws (connection loss, abort).
 *
 * ```ts
 * const response = await fetch("http://127.0.0.1:11434/v1/chat/completions", { method: "POST", body: "…" });
 * for await (const payload of decodeEventStream(response.body!)) console.log(payload);
 * ```
 */
export async function* decodeEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown, void> {
  const reader = body.getReader();
  const parser = new EventStreamParser();
  const text = new TextDecoder();
  let bodyEnded = false;
  try {
    while (!parser.finished) {
      const { value, done } = await reader.read();
      bodyEnded = done;
      const payloads = done ? parser.end(text.decode()) : parser.push(text.decode(value, { stream: true }));
      for (let i = 0; i < payloads.length; i++) yield payloads[i];
      if (parser.failure !== undefined) throw parser.failure;
      if (done) return;
    }
  } finally {
    // Stops the body after `[DONE]`, an error, or a consumer that stopped early.
    if (!bodyEnded) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The line-level SSE state machine behind `decodeEventStream`; pure, so it is cheap per chunk. */
class EventStreamParser {
  /** Set at `[DONE]` or at a failure: nothing more is read. */
  finished = false;
  /** Why decoding stopped, thrown once the payloads before it have been taken. */
  failure: unknown;
  private pending = "";
  private event = "";
  private data: string[] = [];
  private decodedEvents = 0;
  private unframed = "";
  private excerpt = "";

  /** Feeds decoded text; returns the payloads completed by it. Lines end with "\n" or "\r\n". */
  push(chunk: string): unknown[] {
    // One character more than is quoted, so the quote can say it was cut.
    if (this.excerpt.length <= EXCERPT_LENGTH) {
      this.excerpt += chunk.slice(0, EXCERPT_LENGTH + 1 - this.excerpt.length);
    }
    const text = this.pending === "" ? chunk : this.pending + chunk;
    const payloads: unknown[] = [];
    let start = 0;
    try {
      while (!this.finished) {
        const lineFeed = text.indexOf("\n", start);
        if (lineFeed === -1) break;
        const end = lineFeed > start && text.charCodeAt(lineFeed - 1) === 13 ? lineFeed - 1 : lineFeed;
        const line = text.slice(start, end);
        start = lineFeed + 1;
        this.line(line, payloads);
      }
    } catch (error) {
      this.failure = error;
      this.finished = true;
    }
    this.pending = start === 0 ? text : text.slice(start);
    return payloads;
  }

  /** Feeds the last text; returns the remaining payloads, or throws for a body without events. */
  end(rest: string): unknown[] {
    const payloads = this.push(`${rest}\n\n`);
    if (this.finished || this.decodedEvents > 0) return payloads;
    this.finished = true;
    const unframed = this.unframed.trim();
    if (unframed.startsWith("{")) {
      let body: unknown;
      try {
        body = JSON.parse(unframed);
      } catch {
        body = undefined;
      }
      const error = serverErrorIn(body);
      if (error) throw error;
    }
    const excerpt = this.excerpt.trimStart();
    if (excerpt.trim() !== "") {
      throw new ServerStreamError(
        `sent a reply without stream events; it began: ${quoteTruncated(excerpt)}`,
        "not_an_event_stream",
      );
    }
    return payloads;
  }

  private line(line: string, payloads: unknown[]): void {
    if (line === "") {
      this.dispatch(payloads);
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) return; // comment
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        return;
      case "event":
        this.event = value;
        return;
      case "id":
      case "retry":
        return;
      case "error":
        throw errorFromText(value);
      default:
        if (this.unframed.length < UNFRAMED_LIMIT) this.unframed += `${line}\n`;
    }
  }

  private dispatch(payloads: unknown[]): void {
    const event = this.event;
    const data = this.data.length === 1 ? this.data[0]! : this.data.join("\n");
    const hadData = this.data.length > 0;
    this.event = "";
    this.data = [];
    if (!hadData) return;
    if (data === "[DONE]") {
      this.finished = true;
      return;
    }
    if (event === "error") throw errorFromText(data);
    const payload: unknown = JSON.parse(data);
    this.decodedEvents++;
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      throw new ServerStreamError(`expected a JSON object, got ${quoteTruncated(data)}`, "malformed_event");
    }
    const error = serverErrorIn(payload);
    if (error) throw error;
    payloads.push(payload);
  }
}

/**
 * `text` as a JSON string literal, cut after 300 characters (marked "…"), for quoting server output
 * in error messages. Contract: pure, never throws. Example: `quoteTruncated("<html>")` is `"\"<html>\""`.
 */
export function quoteTruncated(text: string): string {
  return JSON.stringify(text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text);
}

/** A `ServerStreamError` for the error payload in `payload`, if it is one. */
function serverErrorIn(payload: unknown): ServerStreamError | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const record = payload as Record<string, unknown>;
  if (record.error !== undefined && record.error !== null && record.error !== false) {
    return errorFromDetails(record.error);
  }
  if (record.object === "error") return errorFromDetails(record);
  return undefined;
}

/** The error an `error:` field or an `event: error` frame carries: JSON details, or plain text. */
function errorFromText(text: string): ServerStreamError {
  try {
    const parsed: unknown = JSON.parse(text);
    return serverErrorIn(parsed) ?? errorFromDetails(parsed);
  } catch {
    return new ServerStreamError(text === "" ? "the server reported an error" : text, "server_error");
  }
}

/** Reads `message` and `code` (else `type`, `status`) from an error object as servers send it. */
function errorFromDetails(details: unknown): ServerStreamError {
  if (typeof details !== "object" || details === null) {
    return new ServerStreamError(String(details), "server_error");
  }
  const record = details as Record<string, unknown>;
  const message =
    typeof record.message === "string"
      ? record.message
      : typeof record.details === "string"
        ? record.details
        : JSON.stringify(details);
  const code = [record.code, record.type, record.status].find(
    (value) => (typeof value === "string" && value !== "") || typeof value === "number",
  );
  return new ServerStreamError(message, "server_error", code === undefined ? undefined : String(code));
}
