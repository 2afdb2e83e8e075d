import { describe, expect, it, vi } from "vitest";
import { parseToolCallArguments, StreamingArguments } from "../../src/providers/tool-call-arguments.js";
import type { ToolCall } from "../../src/types/messages.js";

vi.mock("partial-json", async (importOriginal) => {
  const actual = await importOriginal<typeof import("partial-json")>();
  return { ...actual, parse: vi.fn(actual.parse) };
});

const newCall = (): ToolCall => ({ type: "toolCall", id: "c1", name: "write", arguments: {} });

describe("StreamingArguments", () => {
  it("parses only when read, once per change of the text", async () => {
    // A fresh copy of the module, so it imports the mocked parser even when other test files of the
    // same module graph (the mutation-testing configuration) imported the real one first.
    vi.resetModules();
    const fresh = await import("../../src/providers/tool-call-arguments.js");
    const parse = vi.mocked((await import("partial-json")).parse);
    parse.mockClear();
    const call = newCall();
    const args = new fresh.StreamingArguments(call);
    for (const delta of ['{"path":"a.txt",', '"content":"', "lorem", " ipsum"]) args.append(delta);
    expect(parse).not.toHaveBeenCalled();
    expect(call.arguments).toEqual({ path: "a.txt", content: "lorem ipsum" });
    expect(call.arguments).toBe(call.arguments);
    expect(parse).toHaveBeenCalledTimes(1);
    args.append(" dolor");
    expect(call.arguments).toEqual({ path: "a.txt", content: "lorem ipsum dolor" });
    expect(parse).toHaveBeenCalledTimes(2);
    args.replace(args.text);
    expect(call.arguments).toEqual({ path: "a.txt", content: "lorem ipsum dolor" });
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it("shows the parse so far as an enumerable property, and the text received", () => {
    const call = newCall();
    const args = new StreamingArguments(call);
    args.append('{"path":"a.txt","n":');
    expect(args.text).toBe('{"path":"a.txt","n":');
    expect(Object.keys(call)).toContain("arguments");
    expect(JSON.parse(JSON.stringify(call))).toMatchObject({ arguments: { path: "a.txt" } });
  });

  it("shows {} for text that is blank or is no object, and re-reads a replaced text of any length", () => {
    const call = newCall();
    const args = new StreamingArguments(call);
    args.append("[1,");
    expect(call.arguments).toEqual({});
    args.replace('{"a":1}');
    expect(call.arguments).toEqual({ a: 1 });
    args.replace("{");
    expect(call.arguments).toEqual({});
    args.replace('{"b":2}');
    expect(call.arguments).toEqual({ b: 2 });
    args.replace("  ");
    expect(call.arguments).toEqual({});
    args.replace('{"c":3}');
    expect(call.arguments).toEqual({ c: 3 });
    args.replace("");
    expect(call.arguments).toEqual({});
  });

  it("keeps the last result while the text does not parse, and ends per policy", () => {
    const cases = [
      ["mark", {}, { raw: '{"a":1,]', error: expect.stringMatching(/JSON/) }],
      ["empty", {}, undefined],
      ["partial", { a: 1 }, undefined],
    ] as const;
    for (const [policy, settled, invalid] of cases) {
      const call = newCall();
      const args = new StreamingArguments(call);
      args.append('{"a":1,');
      expect(call.arguments).toEqual({ a: 1 });
      args.append("]");
      expect(call.arguments).toEqual({ a: 1 });
      expect(args.end(policy)).toBe(false);
      expect(call.arguments).toEqual(settled);
      expect(call.invalidArguments).toEqual(invalid);
      expect(Object.getOwnPropertyDescriptor(call, "arguments")).toEqual({
        value: settled,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  });

  it("ends with the strict parse of the text, or of a replacement sent at the end", () => {
    const call = newCall();
    const args = new StreamingArguments(call);
    args.append('{"a":');
    args.replace('{"b":[1,2]}');
    expect(call.arguments).toEqual({ b: [1, 2] });
    expect(args.end("mark")).toBe(true);
    expect(call).toEqual({ type: "toolCall", id: "c1", name: "write", arguments: { b: [1, 2] } });
  });

  it("lets an assignment end the accessor", () => {
    const call = newCall();
    new StreamingArguments(call).append('{"a":1}');
    call.arguments = { replaced: true };
    expect(Object.getOwnPropertyDescriptor(call, "arguments")).toMatchObject({ value: { replaced: true } });
  });
});

describe("parseToolCallArguments", () => {
  it("accepts an object or empty text, and names what is wrong otherwise", () => {
    expect(parseToolCallArguments(" ")).toEqual({ ok: true, value: {} });
    expect(parseToolCallArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolCallArguments("[1]")).toEqual({ ok: false, error: "arguments must be a JSON object" });
    for (const json of ["null", "1", '"text"', "true"]) {
      expect(parseToolCallArguments(json)).toEqual({ ok: false, error: "arguments must be a JSON object" });
    }
    expect(parseToolCallArguments("{bad")).toMatchObject({ ok: false, error: expect.stringMatching(/JSON/) });
  });
});
