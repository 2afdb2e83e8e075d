import { describe, expect, it } from "vitest";
import { extractSnippets } from "../support/doc-snippets.js";

describe("extractSnippets", () => {
  it("finds every ts block with the page line of its first code line, and skips other languages", () => {
    const page = [
      "# Title",
      "",
      "```ts",
      "const a = 1;",
      "```",
      "",
      "```sh",
      "ls",
      "```",
      "```ts",
      "```",
    ].join("\n");
    expect(extractSnippets(page, "a.md")).toEqual([
      {
        file: "a.md",
        line: 4,
        code: "const a = 1;\n",
        declarations: "",
        declarationsLine: 0,
        runnable: false,
      },
      { file: "a.md", line: 11, code: "", declarations: "", declarationsLine: 0, runnable: false },
    ]);
  });

  it("reads fragment declarations on the marker's line or the lines after it, and knows where they are", () => {
    const page = [
      "<!-- snippet: fragment declare const a: number; -->",
      "```ts",
      "a;",
      "```",
      "<!-- snippet: fragment",
      "declare const b: string;",
      "declare const c: string;",
      "-->",
      "",
      "```ts",
      "b + c;",
      "```",
    ].join("\n");
    const [one, two] = extractSnippets(page, "a.md");
    expect(one).toMatchObject({ declarations: "declare const a: number;\n", declarationsLine: 1, line: 3 });
    expect(two).toMatchObject({
      declarations: "declare const b: string;\ndeclare const c: string;\n",
      declarationsLine: 6,
      line: 11,
    });
  });

  it("attaches a marked output block to the runnable block before it, and strips a list's indent", () => {
    const page = [
      "- step",
      "  <!-- snippet: runnable -->",
      "  ```ts",
      "  console.log(1);",
      "  ```",
      "  prints",
      "  <!-- snippet: output -->",
      "  ```text",
      "  1",
      "  ```",
    ].join("\n");
    expect(extractSnippets(page, "a.md")).toEqual([
      {
        file: "a.md",
        line: 4,
        code: "console.log(1);\n",
        declarations: "",
        declarationsLine: 0,
        runnable: true,
        expectedOutput: "1\n",
      },
    ]);
  });

  it("forgets a marker that text separates from the block", () => {
    const page = ["<!-- snippet: runnable -->", "Some words.", "```ts", "x;", "```"].join("\n");
    expect(extractSnippets(page, "a.md")[0]?.runnable).toBe(false);
  });

  it("names file:line of a marker it cannot use", () => {
    expect(() => extractSnippets("<!-- snippet: runable -->\n```ts\n```", "b.md")).toThrow(
      'b.md:1: unknown snippet flag "runable"',
    );
    expect(() => extractSnippets("\n<!-- snippet: fragment -->\n```ts\n```", "b.md")).toThrow(
      "b.md:2: a fragment marker needs declarations",
    );
    expect(() => extractSnippets("<!-- snippet: output -->\n```text\n1\n```", "b.md")).toThrow(
      "b.md:1: an output block must follow a runnable ts block",
    );
    expect(() => extractSnippets("<!-- snippet: runnable -->\n```sh\nls\n```", "b.md")).toThrow(
      "b.md:1: a snippet marker must precede a ts block",
    );
    expect(() => extractSnippets("```ts\nx;\n", "b.md")).toThrow("b.md:1: unclosed code fence");
  });
});
