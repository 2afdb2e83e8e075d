import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPTIONAL_PEERS } from "../../src/types/optional-peer.js";
import { repoRoot } from "../support/cli-process.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
/** `name@version` as pinned in our devDependencies, so that npm usually finds it in its cache. */
const pinned = (name: string) => `${name}@${manifest.devDependencies[name]}`;

/**
 * The most an app's node_modules may take on disk after `npm i agentchart zod` (du, KiB): 53 MiB
 * (50 MiB until issues 32 and 33: the core app took 51,164 KiB before them; `agentchart/ai-sdk`'s own
 * files, no dependency, add ~180 KiB, and re2js, the linear-time regex engine of page-declared tool
 * schemas, 0.9 MiB; 52 MiB until issues 28 and 29, whose own files — record/replay, the testing kit,
 * `agentchart/evals`, no dependency — took the core app to 53,280 KiB).
 */
const CORE_INSTALL_LIMIT_KIB = 53 * 1024;

/**
 * Packs the package as it would be published (`npm pack` builds it through `prepack`), installs the
 * tarball into empty apps (from npm's cache where it can: `--prefer-offline`), and uses it from there: once as a core app
 * (`npm i agentchart zod`, no optional peer) and once with every optional peer installed.
 */
let work: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agentchart-pack-"));
  await run(npm, ["pack", "--pack-destination", work], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  const name = readdirSync(work).find((file) => file.endsWith(".tgz"));
  if (!name) throw new Error(`npm pack left no tarball in ${work}`);
  tarball = join(work, name);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** An empty ESM app with `packages` installed (from npm's cache where it has them, else the registry). */
async function createApp(name: string, packages: string[]): Promise<string> {
  const app = join(work, name);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages], {
    cwd: app,
    maxBuffer: 16 * 1024 * 1024,
  });
  return app;
}

/** Runs an ES module script in `app` and returns what it printed. */
async function runScript(app: string, script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: app });
  return stdout;
}

/** The names of `names` that `specifier` does not export, imported from inside `app`. */
async function missingExports(app: string, specifier: string, names: string[]): Promise<string[]> {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => !(n in m))));`;
  return JSON.parse(await runScript(app, script)) as string[];
}

/** The name, code and message of the error that `expression` (awaited inside `app`) rejects with. */
async function failureOf(
  app: string,
  expression: string,
): Promise<{ name: string; code: string; message: string }> {
  const script = `try { await (${expression}); console.log("null"); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`;
  return JSON.parse(await runScript(app, script));
}

/** The bin's environment: no API key or server, so the CLI runs its offline model; home in the app. */
function offlineEnv(app: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: app };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  return env;
}

describe("a core install (`npm i agentchart zod`)", () => {
  let app: string;

  beforeAll(async () => {
    app = await createApp("core-app", [tarball, pinned("zod")]);
  }, 300_000);

  it("installs none of the optional peers and takes at most 51 MiB on disk", async () => {
    const installed = [
      ...readdirSync(join(app, "node_modules")),
      ...readdirSync(join(app, "node_modules"))
        .filter((name) => name.startsWith("@"))
        .flatMap((scope) => readdirSync(join(app, "node_modules", scope)).map((name) => `${scope}/${name}`)),
    ];
    for (const peer of Object.keys(OPTIONAL_PEERS)) expect(installed).not.toContain(peer);
    const { stdout } = await run("du", ["-sk", "node_modules"], { cwd: app });
    const kib = Number.parseInt(stdout, 10);
    expect(kib, `node_modules of a core app: ${kib} KiB`).toBeLessThanOrEqual(CORE_INSTALL_LIMIT_KIB);
  });

  it("exports the core, the machines, the session format, compaction, JSONL sessions, tools, the inspector, the providers, the test helpers and the evals", async () => {
    expect(
      await missingExports(app, "agentchart", ["Agent", "AgentHarness", "defineTool", "getModel"]),
    ).toEqual([]);
    expect(
      await missingExports(app, "agentchart/node", [
        "JsonlSessionRepo",
        "createBuiltinTools",
        "createInspectorServer",
        "loadSkills",
      ]),
    ).toEqual([]);
    expect(
      await missingExports(app, "agentchart/machines", [
        "agentMachine",
        "createAgentMachine",
        "toolCallMachine",
        "createHarnessMachine",
        "agentLoop",
      ]),
    ).toEqual([]);
    expect(await missingExports(app, "agentchart/sessions", ["parseSessionText", "SessionTree"])).toEqual([]);
    expect(await missingExports(app, "agentchart/compaction", ["compact", "prepareCompaction"])).toEqual([]);
    expect(await missingExports(app, "agentchart/openai", ["openai"])).toEqual([]);
    expect(await missingExports(app, "agentchart/ai-sdk", ["fromAiSdk", "aiSdkModel"])).toEqual([]);
    expect(
      await missingExports(app, "agentchart/testing", [
        "scriptedModel",
        "sessionRepoConformance",
        "createAgentTestModel",
      ]),
    ).toEqual([]);
    expect(
      await missingExports(app, "agentchart/evals", ["runEval", "readEvalDataset", "trajectoryMatch"]),
    ).toEqual([]);
  });

  it("runs an agent whose tool is defined with the app's zod", async () => {
    const script = `
      import { z } from "zod";
      import { Agent, defineTool } from "agentchart";
      import { scriptedModel } from "agentchart/testing";
      const add = defineTool({
        name: "add", description: "Adds", parameters: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      });
      const agent = new Agent({
        model: "gpt-4.1-mini",
        streamFn: scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "done" }]),
        tools: [add],
      });
      await agent.prompt("2 + 3?");
      const result = agent.state.messages.find((m) => m.role === "toolResult");
      console.log(result.content[0].text);`;
    expect((await runScript(app, script)).trim()).toBe("5");
  });

  it("names the package to install when an entry or a feature needs an optional peer", async () => {
    const expectMissing = (failure: { name: string; code: string; message: string }, peer: string) => {
      expect(failure).toMatchObject({ name: "MissingPeerDependencyError", code: "missing_peer_dependency" });
      expect(failure.message).toContain(
        `npm install ${peer}@"${OPTIONAL_PEERS[peer as keyof typeof OPTIONAL_PEERS]}"`,
      );
    };
    const postgres = await failureOf(app, `import("agentchart/postgres")`);
    expectMissing(postgres, "pg");
    expect(postgres.message).toMatch(/^agentchart\/postgres needs the package "pg", which is not installed/);
    expectMissing(await failureOf(app, `import("agentchart/mcp")`), "@modelcontextprotocol/sdk");
    const anthropic = await failureOf(
      app,
      `import("agentchart/ai-sdk").then((m) => m.aiSdkModel({ provider: "anthropic", apiKey: "k" }))`,
    );
    expectMissing(anthropic, "@ai-sdk/anthropic");
    expect(anthropic.message).toMatch(/^agentchart\/ai-sdk needs the package "@ai-sdk\/anthropic"/);
    const otel = await failureOf(app, `import("agentchart/otel")`);
    expectMissing(otel, "@opentelemetry/api");
    expect(otel.message).toMatch(/^agentchart\/otel needs the package "@opentelemetry\/api"/);
    const react = await failureOf(app, `import("agentchart/react")`);
    expectMissing(react, "react");
    expect(react.message).toMatch(/^agentchart\/react needs the package "react"/);
    expectMissing(
      await failureOf(app, `import("agentchart/node").then((m) => m.createInspectorServer({ port: 0 }))`),
      "ws",
    );
    const bin = join(app, "node_modules", ".bin", "agentchart");
    const cli = await run(bin, ["--version"], { cwd: app, env: offlineEnv(app) }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(
      'agentchart: The agentchart command line needs the package "commander", which is not installed',
    );
    expect(cli.stderr).toContain("npm install -g agentchart commander");
  });
});

describe("an install with the optional peers", () => {
  let app: string;

  beforeAll(async () => {
    const peers = Object.keys(OPTIONAL_PEERS).map(pinned);
    app = await createApp("full-app", [tarball, pinned("zod"), ...peers]);
  }, 300_000);

  it("exports the PostgreSQL session repo and workers from `agentchart/postgres`", async () => {
    expect(
      await missingExports(app, "agentchart/postgres", [
        "PostgresSessionRepo",
        "PostgresSession",
        "createWorker",
      ]),
    ).toEqual([]);
  });

  it("exports the MCP tool source from `agentchart/mcp`", async () => {
    expect(await missingExports(app, "agentchart/mcp", ["connectMcpServers", "parseMcpConfig"])).toEqual([]);
  });

  it("makes an agentchart model of an AI SDK provider model through `agentchart/ai-sdk`", async () => {
    const script = `
      import { createAnthropic } from "@ai-sdk/anthropic";
      import { fromAiSdk } from "agentchart/ai-sdk";
      const { model } = fromAiSdk(createAnthropic({ apiKey: "k" })("claude-sonnet-4-5"));
      console.log(model.provider, model.contextWindow, model.cost.cacheWrite);`;
    expect((await runScript(app, script)).trim()).toBe("anthropic 200000 3.75");
  });

  it("exports tracing from `agentchart/otel`", async () => {
    expect(
      await missingExports(app, "agentchart/otel", [
        "instrument",
        "tracedAgentLoop",
        "injectTraceContext",
        "GEN_AI",
      ]),
    ).toEqual([]);
  });

  it("starts the inspector server, which serves the layout engine", async () => {
    const script = `
      import { createInspectorServer } from "agentchart/node";
      const server = await createInspectorServer({ port: 0 });
      const response = await fetch(new URL("/assets/elk.js", server.url));
      console.log(response.status, (await response.text()).includes("export default module.exports"));
      await server.close();`;
    expect((await runScript(app, script)).trim()).toBe("200 true");
  });

  it("installs the `agentchart` bin, which answers offline", async () => {
    const bin = join(app, "node_modules", ".bin", "agentchart");
    const env = offlineEnv(app);
    const printed = await run(bin, ["--version"], { cwd: app, env });
    expect(printed.stdout.trim()).toBe(manifest.version);
    const answer = await run(bin, ["--no-session", "what is here?"], { cwd: app, env });
    expect(answer.stdout).toContain('You asked: "what is here?"');
    expect(answer.stdout).toContain("node_modules/");
  });
});
