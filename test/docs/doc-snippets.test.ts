import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/cli-process.js";
import { type SnippetDiagnostic, SnippetWorkspace } from "../support/doc-snippet-workspace.js";
import { type DocSnippet, readSnippets, snippetLocation } from "../support/doc-snippets.js";

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

describe("the snippets of README.md and docs/*.md", () => {
  let workspace: SnippetWorkspace;
  let diagnostics: Map<DocSnippet, SnippetDiagnostic[]>;

  beforeAll(async () => {
    workspace = await SnippetWorkspace.create(snippets);
    diagnostics = await workspace.typeCheck();
  }, 240_000);

  afterAll(() => workspace?.close());

  it("are found: every page has its ts blocks extracted", () => {
    expect(snippets.length).toBeGreaterThan(20);
    expect(new Set(snippets.map((snippet) => snippet.file))).toContain("README.md");
  });

  it.each(snippets.map((snippet) => [snippetLocation(snippet), snippet] as const))(
    "%s type-checks",
    (_, snippet) => {
      const errors = diagnostics.get(snippet)!.map((d) => `${d.location} ${d.message}`);
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
