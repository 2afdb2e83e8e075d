import { describe, expect, it } from "vitest";
import { invalidArgumentsText, QUOTED_ARGUMENTS_MAX_CHARS } from "../../src/loop/invalid-arguments.js";
import type { ToolCall } from "../../src/types/messages.js";

const callWith = (raw: string): ToolCall => ({
  type: "toolCall",
  id: "c1",
  name: "echo",
  arguments: {},
  invalidArguments: { raw, error: "Unexpected token }" },
});

const HEAD =
  'The arguments of tool call "echo" are not valid JSON (Unexpected token }), so the tool did not run. ' +
  "Send the call again with a valid JSON object as arguments.\n\n";

describe("the error text of invalid arguments", () => {
  it("is undefined for a call whose arguments parsed", () => {
    expect(invalidArgumentsText({ type: "toolCall", id: "c1", name: "echo", arguments: {} })).toBeUndefined();
  });

  it("names the error and quotes the whole text when it is short enough", () => {
    expect(invalidArgumentsText(callWith('{"a":}'))).toBe(
      `${HEAD}Received arguments (6 characters):\n{"a":}`,
    );
    const atLimit = "x".repeat(QUOTED_ARGUMENTS_MAX_CHARS);
    expect(invalidArgumentsText(callWith(atLimit))).toBe(
      `${HEAD}Received arguments (${QUOTED_ARGUMENTS_MAX_CHARS} characters):\n${atLimit}`,
    );
    expect(invalidArgumentsText(callWith(""))).toBe(`${HEAD}Received arguments (0 characters):\n`);
  });

  it("quotes the first characters of a longer text and says how many more there were", () => {
    const raw = "y".repeat(QUOTED_ARGUMENTS_MAX_CHARS + 5);
    expect(invalidArgumentsText(callWith(raw))).toBe(
      `${HEAD}Received arguments (${raw.length} characters):\n${"y".repeat(QUOTED_ARGUMENTS_MAX_CHARS)}\n… (5 more characters not shown)`,
    );
  });

  it("never cuts a surrogate pair in half", () => {
    // A pair whose high half is the last character kept: the cut moves before it.
    const straddling = `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 1)}😀tail`;
    expect(invalidArgumentsText(callWith(straddling))).toBe(
      `${HEAD}Received arguments (${straddling.length} characters):\n${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 1)}\n… (6 more characters not shown)`,
    );
    // A pair that ends at the cut is kept whole.
    const whole = `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 2)}😀tail`;
    expect(invalidArgumentsText(callWith(whole))).toContain(
      `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 2)}😀\n… (4 more`,
    );
    // Characters just outside the high-surrogate range are cut as usual.
    for (const code of [0xd7ff, 0xdc00]) {
      const raw = `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 1)}${String.fromCharCode(code)}tail`;
      expect(invalidArgumentsText(callWith(raw)), code.toString(16)).toContain(
        `${String.fromCharCode(code)}\n… (4 more characters not shown)`,
      );
    }
    const lowestHigh = `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 1)}\ud800\udc00`;
    expect(invalidArgumentsText(callWith(lowestHigh))).toContain("\n… (2 more characters not shown)");
    const highestHigh = `${"x".repeat(QUOTED_ARGUMENTS_MAX_CHARS - 1)}\udbff\udfff`;
    expect(invalidArgumentsText(callWith(highestHigh))).toContain("\n… (2 more characters not shown)");
  });

  it("quotes a raw value that is not a string as text", () => {
    const call = { ...callWith(""), invalidArguments: { raw: 42 as unknown as string, error: "e" } };
    expect(invalidArgumentsText(call)).toMatch(/Received arguments \(2 characters\):\n42$/);
  });
});
