import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvalInputError, parseEvalDataset, readEvalDataset } from "../../src/evals.js";

function inputError(work: () => unknown): EvalInputError {
  try {
    work();
  } catch (error) {
    if (error instanceof EvalInputError) return error;
    throw error;
  }
  throw new Error("no EvalInputError was thrown");
}

describe("eval datasets (JSONL)", () => {
  it("reads one case per line, skipping blank lines, prompts and messages alike", () => {
    const cases = parseEvalDataset(
      [
        JSON.stringify({ id: "a", input: "read package.json", expectedTrajectory: [{ name: "read" }] }),
        "",
        JSON.stringify({
          id: "b",
          input: [{ role: "user", content: "hello", timestamp: 1 }],
          expectedOutput: "hi",
          metadata: { tag: "greeting" },
        }),
        "   ",
      ].join("\n"),
    );
    expect(cases).toEqual([
      { id: "a", input: "read package.json", expectedTrajectory: [{ name: "read" }] },
      {
        id: "b",
        input: [{ role: "user", content: "hello", timestamp: 1 }],
        expectedOutput: "hi",
        metadata: { tag: "greeting" },
      },
    ]);
  });

  it("names the line that is not JSON", () => {
    const error = inputError(() =>
      parseEvalDataset(`{"id":"a","input":"x"}\n{"id": "b", input}\n`, "cases.jsonl"),
    );
    expect(error.code).toBe("invalid_line");
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/^cases\.jsonl:2: not JSON/);
  });

  it("names the line and the field of a case that does not fit", () => {
    const error = inputError(() =>
      parseEvalDataset(
        `{"id":"a","input":"x"}\n\n{"id":"b","input":"y","expectedTrajectory":[{"arguments":{}}]}`,
      ),
    );
    expect(error).toMatchObject({ code: "invalid_line", line: 3 });
    expect(error.message).toContain("expectedTrajectory.0.name");
  });

  it("checks input messages as stored messages are checked", () => {
    const error = inputError(() => parseEvalDataset(`{"id":"a","input":[{"role":"user","content":12}]}`));
    expect(error).toMatchObject({ code: "invalid_line", line: 1 });
    expect(error.message).toContain("input.0: message.content");
  });

  it("rejects a case id used twice, naming both lines", () => {
    const error = inputError(() => parseEvalDataset(`{"id":"a","input":"x"}\n{"id":"a","input":"y"}`));
    expect(error).toMatchObject({ code: "duplicate_case_id", line: 2 });
    expect(error.message).toContain("already used on line 1");
  });

  it("rejects a dataset without cases", () => {
    expect(inputError(() => parseEvalDataset("\n\n")).code).toBe("empty_dataset");
  });

  it("reads a file, naming it in errors", async () => {
    const dir = await mkdtemp(join(tmpdir(), "evals-"));
    const file = join(dir, "set.jsonl");
    await writeFile(file, `{"id":"a","input":"x"}\nnope\n`);
    await expect(readEvalDataset(file)).rejects.toThrow(`${file}:2: not JSON`);
    await writeFile(file, `{"id":"a","input":"x"}\n`);
    expect(await readEvalDataset(file)).toEqual([{ id: "a", input: "x" }]);
  });
});
