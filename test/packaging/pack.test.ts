import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/cli-process.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * Packs the package as it would be published (`npm pack` builds it through `prepack`), installs the
 * tarball into an empty project, and uses it from there: every entry point and the `agentchart` bin.
 */
describe("the packed package", () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "agentchart-pack-"));
    await run(npm, ["pack", "--pack-destination", work], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);
    project = join(work, "project");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball)], {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 300_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const importIn = async (specifier: string, names: string[]) => {
    const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => !(n in m))));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project });
    return JSON.parse(stdout) as string[];
  };

  it("exports the core from `agentchart`", async () => {
    expect(
      await importIn("agentchart", ["Agent", "agentLoop", "agentMachine", "defineTool", "MemorySessionRepo"]),
    ).toEqual([]);
  });

  it("exports sessions, tools and the inspector from `agentchart/node`", async () => {
    expect(
      await importIn("agentchart/node", [
        "JsonlSessionRepo",
        "createBuiltinTools",
        "createInspectorServer",
        "loadSkills",
      ]),
    ).toEqual([]);
  });

  it("exports the provider from `agentchart/openai`", async () => {
    expect(await importIn("agentchart/openai", ["openai"])).toEqual([]);
  });

  it("exports the PostgreSQL session repo from `agentchart/postgres`", async () => {
    expect(await importIn("agentchart/postgres", ["PostgresSessionRepo", "PostgresSession"])).toEqual([]);
  });

  it("exports tracing from `agentchart/otel` once the app installs @opentelemetry/api", async () => {
    // The optional peer is not installed with the package, and the core works without it.
    expect(readdirSync(join(project, "node_modules"))).not.toContain("@opentelemetry");
    expect(await importIn("agentchart", ["Agent"])).toEqual([]);
    await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "@opentelemetry/api@1.9.1"], {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(
      await importIn("agentchart/otel", ["instrument", "tracedAgentLoop", "injectTraceContext", "GEN_AI"]),
    ).toEqual([]);
  }, 120_000);

  it("loads `agentchart/testing` without a test runner installed", async () => {
    expect(await importIn("agentchart/testing", ["scriptedModel", "sessionRepoConformance"])).toEqual([]);
    const installed = readdirSync(join(project, "node_modules"));
    expect(installed).not.toContain("vitest");
  });

  it("installs the `agentchart` bin, which answers offline", async () => {
    const bin = join(project, "node_modules", ".bin", "agentchart");
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: project };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      version: string;
    };
    const printed = await run(bin, ["--version"], { cwd: project, env });
    expect(printed.stdout.trim()).toBe(version);
    const answer = await run(bin, ["--no-session", "what is here?"], { cwd: project, env });
    expect(answer.stdout).toContain('You asked: "what is here?"');
    expect(answer.stdout).toContain("node_modules/");
  });
});
