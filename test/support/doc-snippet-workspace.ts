import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ProcessResult, repoRoot } from "./cli-process.js";
import { type DocSnippet, snippetLocation } from "./doc-snippets.js";

const run = promisify(execFile);
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
const tsxLoader = join(repoRoot, "node_modules", "tsx", "dist", "loader.mjs");
/**
 * The built package lives here between runs, so that `tsc --incremental` rebuilds only what changed;
 * one folder per checkout, as git worktrees may share one `node_modules` (its real path, see
 * {@link builtModuleOf}).
 */
const packageCache = join(
  realpathSync(join(repoRoot, "node_modules")),
  ".cache",
  `agentchart-doc-snippets-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}`,
);

/**
 * The module of a source file in the built package, by its real path (`src/agent/agent.ts` →
 * `/…/agentchart/dist/agent/agent.js`): the declarations `agentchart` resolves to, not a copy of them
 * reached through a symbolic link.
 */
export function builtModuleOf(file: string): string {
  return join(packageCache, "agentchart", "dist", file.replace(/^src\//, "").replace(/\.ts$/, ".js"));
}

/** The compiler options an app gets from `strict`, on Node, with the package as published. */
const SNIPPET_COMPILER_OPTIONS = {
  target: "ES2023",
  lib: ["ES2023"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  moduleDetection: "force",
  strict: true,
  skipLibCheck: true,
  types: ["node"],
  noEmit: true,
};

/** A type error, located in the Markdown page (`docs/sessions.md:14:7`). */
export interface SnippetDiagnostic {
  location: string;
  message: string;
}

/**
 * A folder that looks like an app which installed agentchart: `node_modules/agentchart` is the
 * package built from `src/` (its `package.json` and `dist/`), every other dependency of this
 * repository is linked next to it, and each snippet is a module of its own (`<n>.ts`, its fragment
 * declarations first).
 * Contract: `create` is async and rejects when the package does not build; `close` removes the folder.
 */
export class SnippetWorkspace {
  private constructor(
    readonly folder: string,
    private readonly snippets: readonly DocSnippet[],
  ) {}

  /**
   * Builds the package (incrementally) and writes one module per snippet, and the `modules` given
   * (`{ "prelude.ts": "…" }`) beside them.
   */
  static async create(
    snippets: readonly DocSnippet[],
    modules: Readonly<Record<string, string>> = {},
  ): Promise<SnippetWorkspace> {
    const packageFolder = join(packageCache, "agentchart");
    const dist = join(packageFolder, "dist");
    await run(
      process.execPath,
      [
        tsc,
        ...["-p", join(repoRoot, "tsconfig.build.json"), "--outDir", dist],
        ...["--incremental", "--tsBuildInfoFile", join(dist, ".tsbuildinfo")],
      ],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string }) => {
      throw new Error(`the package does not build:\n${error.stdout ?? String(error)}`);
    });
    copyFileSync(join(repoRoot, "package.json"), join(packageFolder, "package.json"));

    const folder = mkdtempSync(join(tmpdir(), "agentchart-snippets-"));
    const dependencies = join(folder, "node_modules");
    mkdirSync(dependencies);
    for (const name of readdirSync(join(repoRoot, "node_modules"))) {
      if (name.startsWith(".")) continue;
      symlinkSync(join(repoRoot, "node_modules", name), join(dependencies, name));
    }
    symlinkSync(packageFolder, join(dependencies, "agentchart"));
    writeFileSync(join(folder, "package.json"), JSON.stringify({ private: true, type: "module" }));
    writeFileSync(
      join(folder, "tsconfig.json"),
      JSON.stringify({ compilerOptions: SNIPPET_COMPILER_OPTIONS, include: ["*.ts"] }, null, 2),
    );
    for (const [name, text] of Object.entries(modules)) writeFileSync(join(folder, name), text);
    snippets.forEach((snippet, index) => {
      writeFileSync(join(folder, moduleName(index)), snippet.declarations + snippet.code);
    });
    return new SnippetWorkspace(folder, snippets);
  }

  /** One `tsc --noEmit` over every snippet; the errors of each, located in its page. */
  async typeCheck(): Promise<Map<DocSnippet, SnippetDiagnostic[]>> {
    const output = await run(process.execPath, [tsc, "-p", this.folder, "--pretty", "false"], {
      cwd: this.folder,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (result) => result.stdout,
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    const found = new Map<DocSnippet, SnippetDiagnostic[]>(this.snippets.map((s) => [s, []]));
    for (const diagnostic of parseDiagnostics(output)) {
      const snippet = diagnostic.module === "" ? undefined : this.snippets[Number(diagnostic.module)];
      if (!snippet) throw new Error(`tsc reported an error outside the snippets: ${diagnostic.raw}`);
      found.get(snippet)!.push({
        location: pageLocation(snippet, diagnostic.line, diagnostic.column),
        message: diagnostic.message,
      });
    }
    return found;
  }

  /** Runs a snippet as `node --import tsx <n>.ts` in a fresh empty folder, offline. */
  async run(snippet: DocSnippet): Promise<ProcessResult> {
    const index = this.snippets.indexOf(snippet);
    const cwd = mkdtempSync(join(tmpdir(), "agentchart-snippet-run-"));
    const env = { ...process.env };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    try {
      const result = await run(
        process.execPath,
        ["--import", tsxLoader, join(this.folder, moduleName(index))],
        { cwd, env, timeout: 30_000 },
      ).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: typeof error.code === "number" ? error.code : null,
          stdout: error.stdout ?? "",
          stderr: error.stderr ?? String(error),
        }),
      );
      return result;
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }

  close(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

function moduleName(index: number): string {
  return `${index}.ts`;
}

/** Maps a line of a snippet module (declarations first, then the block) back to its page. */
function pageLocation(snippet: DocSnippet, line: number, column: number): string {
  const declarationLines = snippet.declarations === "" ? 0 : snippet.declarations.split("\n").length - 1;
  if (line <= declarationLines) {
    return `${snippet.file}:${snippet.declarationsLine + line - 1}:${column} (declarations before the block)`;
  }
  const pageLine = snippet.line + line - declarationLines - 1;
  return `${snippetLocation({ file: snippet.file, line: pageLine })}:${column + (snippet.column ?? 0)}`;
}

interface TscDiagnostic {
  module: string;
  line: number;
  column: number;
  message: string;
  raw: string;
}

/** Parses `tsc --pretty false` output: `3.ts(12,5): error TS2322: …` and its indented continuation lines. */
function parseDiagnostics(output: string): TscDiagnostic[] {
  const diagnostics: TscDiagnostic[] = [];
  for (const line of output.split("\n")) {
    const match = /^(\d+)\.ts\((\d+),(\d+)\): error (TS\d+: .*)$/.exec(line);
    if (match) {
      diagnostics.push({
        module: match[1]!,
        line: Number(match[2]),
        column: Number(match[3]),
        message: match[4]!,
        raw: line,
      });
    } else if (line.startsWith(" ") && diagnostics.length > 0) {
      diagnostics.at(-1)!.message += `\n${line}`;
    } else if (line.trim() !== "") {
      diagnostics.push({ module: "", line: 0, column: 0, message: line, raw: line });
    }
  }
  return diagnostics;
}
