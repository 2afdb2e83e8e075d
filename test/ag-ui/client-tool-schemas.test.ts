import { describe, expect, it } from "vitest";
import { AgUiError } from "../../src/ag-ui/ag-ui-error.js";
import { CLIENT_TOOL_CACHE_SIZE, clientToolsOf } from "../../src/ag-ui/client-tools.js";
import type { AgentTool } from "../../src/types/tool.js";

/** A page's tool whose argument must match `pattern`. */
const patterned = (pattern: string, name = "spell") => ({
  name,
  description: "Takes a word",
  parameters: { type: "object", properties: { word: { type: "string", pattern } }, required: ["word"] },
});

/** Whether the tool accepts the arguments (its zod wrapper runs the compiled schema). */
const accepts = (tool: AgentTool, args: unknown) =>
  (tool.parameters as { safeParse(value: unknown): { success: boolean } }).safeParse(args).success;

describe("client tool schemas", () => {
  it("runs a declared pattern on a linear-time engine: a catastrophic pattern cannot freeze the server", () => {
    const [tool] = clientToolsOf([patterned("^(a+)+$")]);
    // On a backtracking engine this argument takes longer than the age of the universe.
    expect(accepts(tool!, { word: `${"a".repeat(5_000)}!` })).toBe(false);
    expect(accepts(tool!, { word: "aaaa" })).toBe(true);
    const [keys] = clientToolsOf([
      {
        name: "keys",
        description: "Named keys",
        parameters: { type: "object", patternProperties: { "^(x+x+)+y$": { type: "number" } } },
      },
    ]);
    expect(accepts(keys!, { [`${"x".repeat(5_000)}y`]: "not a number" })).toBe(false);
  });

  it("keeps ECMAScript patterns working (classes, Unicode, named groups) and refuses what needs backtracking", () => {
    const [tool] = clientToolsOf([patterned("^(?<area>\\d{3})-\\p{L}+$")]);
    expect(accepts(tool!, { word: "123-été" })).toBe(true);
    expect(accepts(tool!, { word: "12-x" })).toBe(false);
    for (const pattern of ["(a)\\1", "(?<=a)b", "a(?!b)"]) {
      let refused: unknown;
      try {
        clientToolsOf([patterned(pattern)]);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(AgUiError);
      expect(refused).toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining("RunAgentInput.tools[0]"),
      });
    }
  });

  it("compiles a declaration once: the same tools come back for every run that declares them", () => {
    const declared = [patterned("^[a-z]+$"), patterned("^[0-9]+$", "count")];
    const first = clientToolsOf(declared);
    const again = clientToolsOf(JSON.parse(JSON.stringify(declared)));
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    // Another description is another declaration.
    const [renamed] = clientToolsOf([{ ...declared[0]!, description: "Another word" }]);
    expect(renamed).not.toBe(first[0]);
  });

  it("keeps a bounded number of compiled declarations: the least recently declared are made again", () => {
    const [first] = clientToolsOf([patterned("^first$")]);
    for (let index = 0; index < CLIENT_TOOL_CACHE_SIZE; index++)
      clientToolsOf([patterned(`^other${index}$`)]);
    const [again] = clientToolsOf([patterned("^first$")]);
    expect(again).not.toBe(first);
    expect(accepts(again!, { word: "first" })).toBe(true);
  });
});
