/**
 * The API report: every name each public entry point exports, with its kind, kept in `api/*.api.md`.
 * Any change to the public surface changes a report file, so it shows in review; an unintended one
 * fails here (`npx vitest run test/package/public-api.test.ts -u` accepts an intended one).
 * `agentchart/internals` is left out on purpose: it promises nothing.
 */
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const ENTRIES = {
  agentchart: "index.ts",
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

function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return "class";
  if (flags & ts.SymbolFlags.Function) return "function";
  if (flags & ts.SymbolFlags.Enum) return "enum";
  if (flags & ts.SymbolFlags.Variable) return "const";
  if (flags & ts.SymbolFlags.Interface) return "interface";
  if (flags & ts.SymbolFlags.TypeAlias) return "type";
  return "other";
}

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
      const source = program.getSourceFile(path.join(root, "src", file))!;
      const module = checker.getSymbolAtLocation(source)!;
      const lines = checker
        .getExportsOfModule(module)
        .map((symbol) => `- ${kindOf(symbol, checker)} \`${symbol.getName()}\``)
        .sort((a, b) => a.split("`")[1]!.localeCompare(b.split("`")[1]!));
      const report = `# \`${name}\`\n\n${lines.length} exports.\n\n${lines.join("\n")}\n`;
      await expect(report).toMatchFileSnapshot(path.join(root, "api", `${file.replace(".ts", "")}.api.md`));
    });
  }
});
