import { describe, expect, it } from "vitest";
import { extractSourceExamples, type SourceExampleScope } from "../support/source-examples.js";

const scope: SourceExampleScope = {
  preludeNames: ["agent", "model"],
  prelude: "./prelude.js",
  builtModuleOf: (file) => `/dist/${file}`,
};

describe("extractSourceExamples", () => {
  it("finds the ts blocks of doc comments with the line and column of their first code character", () => {
    const source = [
      "/**",
      " * Adds.",
      " *",
      " * ```ts",
      " * add(1, 2); // 3",
      " * ```",
      " */",
      "export function add(a: number, b: number): number {",
      "  return a + b;",
      "}",
      "class Box {",
      "  /**",
      "   * ```ts",
      "   * new Box();",
      "   *",
      "   *   indented();",
      "   * ```",
      "   * ```sh",
      "   * ls",
      "   * ```",
      "   */",
      "  open(): void {}",
      "}",
    ].join("\n");
    const examples = extractSourceExamples(source, "src/add.ts", scope);
    expect(examples.map(({ file, line, column, code }) => ({ file, line, column, code }))).toEqual([
      { file: "src/add.ts", line: 5, column: 3, code: "add(1, 2); // 3\n" },
      { file: "src/add.ts", line: 14, column: 5, code: "new Box();\n\n  indented();\n" },
    ]);
    expect(examples.every((example) => !example.runnable)).toBe(true);
  });

  it("imports the names of the file and of the prelude a block uses, the file's first", () => {
    const source = [
      "export const agent = 1;",
      "export function add(a: number, b: number): number { return a + b; }",
      "export { add as plus };",
      "/**",
      " * ```ts",
      " * add(agent, 2);",
      " * console.log(model.id, plus);",
      " * ```",
      " */",
    ].join("\n");
    expect(extractSourceExamples(source, "src/add.ts", scope)[0]!.declarations).toBe(
      'import { agent, add, plus } from "/dist/src/add.ts"; import { model } from "./prelude.js";\n',
    );
  });

  it("leaves out the names a block declares or imports itself, and property names", () => {
    const source = [
      "export const add = (a: number, b: number) => a + b;",
      "/**",
      " * ```ts",
      ' * import { model } from "agentchart";',
      " * const { agent } = { agent: 1 };",
      " * const sum = { add: 1 }.add + agent;",
      " * ```",
      " */",
      "/**",
      " * ```ts",
      " * console.log(1);",
      " * ```",
      " */",
    ].join("\n");
    expect(extractSourceExamples(source, "src/add.ts", scope).map((example) => example.declarations)).toEqual(
      ["", ""],
    );
  });

  it("refuses an @example that is not a fenced block on the lines after it, naming the file and line", () => {
    const inline = ["/**", " * Adds.", " * @example add(1, 2) // 3", " */"].join("\n");
    expect(() => extractSourceExamples(inline, "src/add.ts", scope)).toThrow(
      "src/add.ts:3: an @example must be a fenced block (```ts) on the lines after it",
    );
    const unfenced = ["/**", " * @example", " *   add(1, 2);", " */"].join("\n");
    expect(() => extractSourceExamples(unfenced, "src/add.ts", scope)).toThrow("src/add.ts:2: an @example");
    const sketch = ["/**", " * @example", " * ```text", " * add(a, b) → a + b", " * ```", " */"].join("\n");
    expect(extractSourceExamples(sketch, "src/add.ts", scope)).toEqual([]);
  });

  it("refuses a block that its doc comment does not close, naming the file and line", () => {
    const source = ["/**", " * ```ts", " * add(1, 2);", " */", "export const a = 1;"].join("\n");
    expect(() => extractSourceExamples(source, "src/add.ts", scope)).toThrow(
      "src/add.ts:2: a ts block not closed in its doc comment",
    );
  });
});
