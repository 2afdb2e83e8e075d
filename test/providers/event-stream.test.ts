import { describe, expect, it } from "vitest";
import { decodeEventStream, quoteTruncated } from "../../src/providers/openai/event-stream.js";
import { ServerStreamError } from "../../src/providers/provider-errors.js";

/** A body that hands out `parts` one read at a time and records whether the reader cancelled it. */
function body(parts: (string | Uint8Array)[]) {
  const encoder = new TextEncoder();
  const queue = parts.map((part) => (typeof part === "string" ? encoder.encode(part) : part));
  const state = { cancelled: false, stream: undefined as unknown as ReadableStream<Uint8Array> };
  state.stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return state;
}

/** Every payload decoded from `parts`, and the error that ended decoding, if any. */
async function decode(...parts: (string | Uint8Array)[]) {
  const source = body(parts);
  const payloads: unknown[] = [];
  let error: unknown;
  try {
    for await (const payload of decodeEventStream(source.stream)) payloads.push(payload);
  } catch (caught) {
    error = caught;
  }
  return { payloads, error, cancelled: source.cancelled };
}

/** The `ServerStreamError` decoding `parts` ends with, as plain fields. */
async function failure(...parts: string[]) {
  const { error } = await decode(...parts);
  expect(error).toBeInstanceOf(ServerStreamError);
  const { message, code, serverCode } = error as ServerStreamError;
  return { message, code, serverCode };
}

describe("decodeEventStream: events", () => {
  it("yields each data payload in order, stops at [DONE] and cancels the rest of the body", async () => {
    const result = await decode(
      'data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\ndata: {"n":3}\n\n',
      "data: {}\n\n",
    );
    expect(result).toEqual({ payloads: [{ n: 1 }, { n: 2 }], error: undefined, cancelled: true });
  });

  it("reads a body to its end without [DONE], taking a last event that has no blank line after it", async () => {
    expect(await decode('data: {"n":1}\n\n', 'data: {"n":2}')).toEqual({
      payloads: [{ n: 1 }, { n: 2 }],
      error: undefined,
      cancelled: false,
    });
  });

  it("cancels the body when the consumer stops early", async () => {
    const source = body(['data: {"n":1}\n\n', 'data: {"n":2}\n\n']);
    for await (const _ of decodeEventStream(source.stream)) break;
    expect(source.cancelled).toBe(true);
  });

  it("reads lines ending in CRLF, [DONE] too", async () => {
    const { payloads, error } = await decode('data: {"n":1}\r\n\r\ndata: [DONE]\r\n\r\n');
    expect(error).toBeUndefined();
    expect(payloads).toEqual([{ n: 1 }]);
  });

  it("joins lines and characters split anywhere across reads", async () => {
    const bytes = new TextEncoder().encode('data: {"text":"é✓"}\n\ndata: [DONE]\n\n');
    const parts = [...bytes].map((byte) => Uint8Array.of(byte)); // every multi-byte character split
    const { payloads, error } = await decode(...parts);
    expect(error).toBeUndefined();
    expect(payloads).toEqual([{ text: "é✓" }]);
  });

  it("ignores comments, ids, retry hints and event names other than error", async () => {
    const text =
      ': keep-alive\nid: 7\nretry: 100\nevent: message\ndata: {"n":1}\n\n: ping\n\ndata: {"n":2}\n\n';
    expect((await decode(text)).payloads).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("joins the data lines of one event with line feeds; a bare `data` line is an empty one", async () => {
    expect((await decode('data: {"a":\ndata\ndata: 1}\n\n')).payloads).toEqual([{ a: 1 }]);
    expect(await failure("event: error\ndata: line one\ndata: line two\n\n")).toEqual({
      message: "line one\nline two",
      code: "server_error",
      serverCode: undefined,
    });
  });

  it("keeps payloads whose error field is null or false", async () => {
    const { payloads, error } = await decode('data: {"error":null,"n":1}\n\ndata: {"error":false,"n":2}\n\n');
    expect(error).toBeUndefined();
    expect(payloads).toEqual([
      { error: null, n: 1 },
      { error: false, n: 2 },
    ]);
  });

  it("refuses a payload that is not a JSON object, quoting it", async () => {
    for (const data of ["[1]", "null", "42", '"text"'])
      expect(await failure(`data: {"n":1}\n\ndata: ${data}\n\n`)).toEqual({
        message: `expected a JSON object, got ${JSON.stringify(data)}`,
        code: "malformed_event",
        serverCode: undefined,
      });
  });

  it("throws the SyntaxError of a data payload that is not JSON, after the payloads before it", async () => {
    const { payloads, error } = await decode('data: {"n":1}\n\ndata: {oops\n\n');
    expect(payloads).toEqual([{ n: 1 }]);
    expect(error).toBeInstanceOf(SyntaxError);
  });
});

describe("decodeEventStream: errors in the stream", () => {
  it("data with an error object: its message, and its code (else type, else status)", async () => {
    expect(
      await failure('data: {"n":1}\n\ndata: {"error":{"message":"overloaded","code":"rate_limit"}}\n\n'),
    ).toEqual({
      message: "overloaded",
      code: "server_error",
      serverCode: "rate_limit",
    });
    expect(await failure('data: {"error":{"message":"m","code":"","type":"busy"}}\n\n')).toMatchObject({
      serverCode: "busy",
    });
    expect(await failure('data: {"error":{"message":"m","status":503}}\n\n')).toMatchObject({
      serverCode: "503",
    });
    expect(await failure('data: {"error":{"message":"m"}}\n\n')).toMatchObject({ serverCode: undefined });
  });

  it("data with an error that is text, details, or neither", async () => {
    expect(await failure('data: {"error":"boom"}\n\n')).toEqual({
      message: "boom",
      code: "server_error",
      serverCode: undefined,
    });
    expect(await failure('data: {"error":{"details":"why"}}\n\n')).toMatchObject({ message: "why" });
    expect(await failure('data: {"error":{"code":5}}\n\n')).toEqual({
      message: '{"code":5}',
      code: "server_error",
      serverCode: "5",
    });
  });

  it("a vLLM error chunk (object: error)", async () => {
    expect(
      await failure('data: {"object":"error","message":"too long","type":"BadRequestError","code":400}\n\n'),
    ).toEqual({ message: "too long", code: "server_error", serverCode: "400" });
  });

  it("an `event: error` frame, with JSON or plain text", async () => {
    expect(await failure('event: error\ndata: {"message":"throttled","code":"Throttling"}\n\n')).toEqual({
      message: "throttled",
      code: "server_error",
      serverCode: "Throttling",
    });
  });

  it("an `error:` field (older llama.cpp), with JSON, text or nothing, also as the body's last line", async () => {
    expect(await failure('error: {"message":"slot unavailable","code":503}\n')).toEqual({
      message: "slot unavailable",
      code: "server_error",
      serverCode: "503",
    });
    expect(await failure('data: {"n":1}\n\nerror: {"error":{"message":"nested"}}\n')).toMatchObject({
      message: "nested",
    });
    expect(await failure("error: plain words\n")).toMatchObject({ message: "plain words" });
    expect(await failure("error:\n")).toMatchObject({ message: "the server reported an error" });
    expect(await failure("error: null\n")).toMatchObject({ message: "null", code: "server_error" });
    expect(await failure('error: {"message":"at the end"}')).toMatchObject({ message: "at the end" });
  });
});

describe("decodeEventStream: a body without events", () => {
  it("a bare JSON error body, also pretty-printed or after blank lines", async () => {
    const error = { error: { message: "model not loaded", type: "invalid_request_error" } };
    for (const text of [JSON.stringify(error), `\n  \n${JSON.stringify(error, null, 2)}\n`])
      expect(await failure(text)).toEqual({
        message: "model not loaded",
        code: "server_error",
        serverCode: "invalid_request_error",
      });
  });

  it("any other text: not an event stream, quoting its start", async () => {
    const ok = await failure('{"ok":true}');
    expect(ok.code).toBe("not_an_event_stream");
    expect(ok.message.startsWith(`sent a reply without stream events; it began: "{\\"ok\\":true}`)).toBe(
      true,
    );
    expect(await failure("{not json")).toMatchObject({ code: "not_an_event_stream" });
    const page = `<html>${"x".repeat(400)}</html>`;
    expect(await failure(page.slice(0, 100), page.slice(100, 250), page.slice(250))).toEqual({
      message: `sent a reply without stream events; it began: ${JSON.stringify(`${page.slice(0, 300)}…`)}`,
      code: "not_an_event_stream",
      serverCode: undefined,
    });
  });

  it("a JSON error body of more lines than the part kept is not read as an error", async () => {
    const text = JSON.stringify({ error: { message: "m", padding: Array(5_000).fill(1) } }, null, 2);
    expect(await failure(text)).toMatchObject({ code: "not_an_event_stream" });
  });

  it("an empty body, or one of blank lines, yields nothing", async () => {
    expect(await decode()).toEqual({ payloads: [], error: undefined, cancelled: false });
    expect(await decode("\n\n  \n")).toEqual({ payloads: [], error: undefined, cancelled: false });
  });
});

describe("quoteTruncated", () => {
  it("quotes up to 300 characters whole and cuts longer text with an ellipsis", () => {
    expect(quoteTruncated("x".repeat(300))).toBe(JSON.stringify("x".repeat(300)));
    expect(quoteTruncated("x".repeat(301))).toBe(JSON.stringify(`${"x".repeat(300)}…`));
  });
});
