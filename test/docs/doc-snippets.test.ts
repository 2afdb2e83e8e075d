import { readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/cli-process.js";
import { builtModuleOf, type SnippetDiagnostic, SnippetWorkspace } from "../support/doc-snippet-workspace.js";
import { type DocSnippet, readSnippets, snippetLocation } from "../support/doc-snippets.js";
import { exportedNames, readSourceExamples } from "../support/source-examples.js";

// Every ```ts block of README.md and docs/*.md compiles under `strict` against the package built from
// src/ (imported as `agentchart`, `agentchart/node`, … like an app does), and the blocks marked
// runnable run. The markers are described in docs/testing.md ("Snippets in the docs").
const pages = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const snippets: DocSnippet[] = pages.flatMap((page) => readSnippets(join(repoRoot, page), page));

// Every ```ts block in a doc comment of src/**/*.ts compiles too, in the same tsc run, as a module of
// its own (its lines without their ` * `). Without importing them, a block may use
// - the names its own file exports (imported from the built file, `dist/…`, so internal helpers count);
// - the names PRELUDE exports: what an example assumes the app already has (a model and its streamFn,
//   tools, an agent, a harness, a session and its repo, a recording, an eval result, a request, an
//   abort signal), each declared with its type.
// A block imports everything else from the package's entries (`agentchart`, `agentchart/node`, …) as an
// app does, and declares what only its own story has (`declare const job: { prompt: string };`).
// A failure names the doc comment's line: `src/agent/agent.ts:154:12 TS2304: …`.
const PRELUDE = `
import type { Agent, AgentHarness, AgentTool, Model, Recording, Session, SessionRepo, StreamFn } from "agentchart";
import type { EvalResult } from "agentchart/evals";
/** The app's model, and the function that streams its replies (\`openai()\`, \`scriptedModel()\`, …). */
export declare const model: Model;
export declare const streamFn: StreamFn;
/** The tools the app defined (\`defineTool()\`, …), an agent and a harness. */
export declare const tools: AgentTool[];
export declare const agent: Agent;
export declare const harness: AgentHarness;
/** A session repository, a session opened from it, and a run's recording. */
export declare const repo: SessionRepo;
export declare const session: Session;
export declare const recording: Recording;
/** The result of an eval (\`runEval()\`). */
export declare const result: EvalResult;
/** A request the app's HTTP handler got. */
export declare const request: Request;
/** The abort signal of the operation an example runs in. */
export declare const signal: AbortSignal;
`;
const examples = readSourceExamples(repoRoot, "src", {
  preludeNames: exportedNames(ts.createSourceFile("prelude.ts", PRELUDE, ts.ScriptTarget.Latest)),
  prelude: "./prelude.js",
  builtModuleOf,
});

let workspace: SnippetWorkspace;
let diagnostics: Map<DocSnippet, SnippetDiagnostic[]>;

beforeAll(async () => {
  workspace = await SnippetWorkspace.create([...snippets, ...examples], { "prelude.ts": PRELUDE });
  diagnostics = await workspace.typeCheck();
}, 240_000);

afterAll(() => workspace?.close());

/** The type errors of a snippet, one per line, located in its page or source file. */
function typeErrorsOf(snippet: DocSnippet): string[] {
  return diagnostics.get(snippet)!.map((d) => `${d.location} ${d.message}`);
}

describe("the snippets of README.md and docs/*.md", () => {
  it("are found: every page has its ts blocks extracted", () => {
    expect(snippets.length).toBeGreaterThan(20);
    expect(new Set(snippets.map((snippet) => snippet.file))).toContain("README.md");
  });

  it.each(snippets.map((snippet) => [snippetLocation(snippet), snippet] as const))(
    "%s type-checks",
    (_, snippet) => {
      const errors = typeErrorsOf(snippet);
      if (errors.length > 0) expect.fail(errors.join("\n"));
    },
  );

  it.each(snippets.filter((s) => s.runnable).map((snippet) => [snippetLocation(snippet), snippet] as const))(
    "%s runs",
    async (_, snippet) => {
      const result = await workspace.run(snippet);
      expect(result.stderr, `${snippetLocation(snippet)} wrote to stderr`).toBe("");
      expect(result.code, `${snippetLocation(snippet)} exited with ${result.code}`).toBe(0);
      if (snippet.expectedOutput !== undefined) {
        expect(
          result.stdout,
          `${snippetLocation(snippet)} printed something else than its output block`,
        ).toBe(snippet.expectedOutput);
      }
    },
    30_000,
  );
});

describe("the examples in the doc comments of src/", () => {
  it("are found: the ts blocks of every folder are extracted", () => {
    expect(examples.length).toBeGreaterThan(200);
    expect(new Set(examples.map((example) => example.file.split("/")[1]))).toContain("agent");
  });

  it.each(examples.map((example) => [snippetLocation(example), example] as const))(
    "%s type-checks",
    (_, example) => {
      const errors = typeErrorsOf(example);
      if (errors.length > 0) expect.fail(errors.join("\n"));
    },
  );
});
