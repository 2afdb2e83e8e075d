/**
 * The API report: every name each public entry point exports, with its declaration (see api-report.ts),
 * kept in `api/*.api.md`. Any change to the public surface, a signature included, changes a report
 * file, so it shows in review; an unintended one
 * fails here (`npx vitest run test/package/public-api.test.ts -u` accepts an intended one).
 * `agentchart/internals` is left out on purpose: it promises nothing.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { apiReport } from "./api-report.js";

const root = path.resolve(import.meta.dirname, "../..");
const ENTRIES = {
  agentchart: "index.ts",
  "agentchart/machines": "machines.ts",
  "agentchart/sessions": "sessions.ts",
  "agentchart/compaction": "compaction.ts",
  "agentchart/node": "node.ts",
  "agentchart/openai": "openai.ts",
  "agentchart/ai-sdk": "ai-sdk.ts",
  "agentchart/testing": "testing.ts",
  "agentchart/postgres": "postgres.ts",
  "agentchart/mcp": "mcp.ts",
  "agentchart/otel": "otel.ts",
  "agentchart/evals": "evals.ts",
  "agentchart/ag-ui": "ag-ui.ts",
  "agentchart/client": "client.ts",
  "agentchart/react": "react.ts",
} as const;

describe("the public API", () => {
  const files = Object.values(ENTRIES).map((file) => path.join(root, "src", file));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();

  for (const [name, file] of Object.entries(ENTRIES)) {
    it(`${name} exports what api/${file.replace(".ts", "")}.api.md lists`, async () => {
      const report = apiReport(name, program.getSourceFile(path.join(root, "src", file))!, checker);
      await expect(report).toMatchFileSnapshot(path.join(root, "api", `${file.replace(".ts", "")}.api.md`));
    });
  }
});
