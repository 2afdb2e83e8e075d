import { readFile } from "node:fs/promises";
import { z } from "zod";
import { issuesText } from "../agent/persisted-agent-format.js";
import { entryFieldsProblem } from "../storage/entry-schema.js";
import type { AgentMessage } from "../types/messages.js";
import type { EvalCase } from "./eval-case.js";
import { EvalInputError } from "./eval-input-error.js";

const trajectoryStepSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const evalCaseSchema = z.object({
  id: z.string().min(1),
  input: z.union([z.string(), z.array(z.record(z.string(), z.unknown())).min(1)]),
  expectedOutput: z.string().optional(),
  expectedTrajectory: z.array(trajectoryStepSchema).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Parses a JSONL eval dataset: one {@link EvalCase} per non-blank line (`id`, `input` as a prompt or
 * messages, optional `expectedOutput`, `expectedTrajectory`, `metadata`).
 *
 * Contract: pure; returns the cases in file order; throws {@link EvalInputError} `invalid_line` naming the
 * line (and `source`) for a line that is not JSON or not a case (with the fields at fault),
 * `duplicate_case_id` for an id used twice, `empty_dataset` for a file without cases.
 *
 * @example
 * ```ts
 * const cases = parseEvalDataset('{"id":"hi","input":"Say hi","expectedOutput":"hi"}\n');
 * ```
 */
export function parseEvalDataset(text: string, source = "dataset"): EvalCase[] {
  const cases: EvalCase[] = [];
  const lineOfId = new Map<string, number>();
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === "") continue;
    const evalCase = parseCaseLine(raw, `${source}:${line}`, line);
    const earlier = lineOfId.get(evalCase.id);
    if (earlier !== undefined) {
      throw new EvalInputError(
        "duplicate_case_id",
        `${source}:${line}: case id "${evalCase.id}" is already used on line ${earlier}`,
        line,
      );
    }
    lineOfId.set(evalCase.id, line);
    cases.push(evalCase);
  }
  if (cases.length === 0) throw new EvalInputError("empty_dataset", `${source} holds no cases`);
  return cases;
}

/**
 * Reads and parses a JSONL eval dataset file (see {@link parseEvalDataset}).
 *
 * Contract: async; rejects with the file system's error for a missing file, with {@link EvalInputError}
 * naming `path:line` for a bad line.
 *
 * @example
 * ```ts
 * const cases = await readEvalDataset("evals/support.jsonl");
 * ```
 */
export async function readEvalDataset(path: string): Promise<EvalCase[]> {
  return parseEvalDataset(await readFile(path, "utf8"), path);
}

function parseCaseLine(raw: string, where: string, line: number): EvalCase {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new EvalInputError("invalid_line", `${where}: not JSON (${(error as Error).message})`, line, {
      cause: error,
    });
  }
  const parsed = evalCaseSchema.safeParse(json);
  if (!parsed.success) {
    throw new EvalInputError(
      "invalid_line",
      `${where}: not an eval case (${issuesText(parsed.error.issues)})`,
      line,
    );
  }
  const { input } = parsed.data;
  if (typeof input !== "string") {
    for (const [position, message] of input.entries()) {
      const problem = entryFieldsProblem({ type: "message", message });
      if (problem !== undefined) {
        throw new EvalInputError("invalid_line", `${where}: input.${position}: ${problem}`, line);
      }
    }
  }
  return parsed.data as EvalCase & { input: string | AgentMessage[] };
}
