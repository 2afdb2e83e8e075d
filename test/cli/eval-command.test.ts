import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { parseEvalResult } from "../../src/evals.js";
import { chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

const repoRoot = resolve(import.meta.dirname, "../..");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentchart-eval-"));
  await writeFile(join(dir, "notes.txt"), "remember the milk\n");
});

afterAll(() => {
  vi.unstubAllEnvs();
});

/** Runs the CLI in this process (cwd: a temporary folder holding notes.txt). */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = dir) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (piece: Buffer) => {
    out += piece.toString();
  });
  stderr.on("data", (piece: Buffer) => {
    err += piece.toString();
  });
  const code = await runCli(args, { cwd, env, stdin: new PassThrough(), stdout, stderr });
  return { code, stdout: out, stderr: err };
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe("agentchart eval", () => {
  it("runs a dataset on the demo agent offline, writes every report and passes the gate", async () => {
    await writeFile(
      join(dir, "set.jsonl"),
      line({ id: "read", input: "read notes.txt", expectedTrajectory: [{ name: "read" }] }) +
        line({ id: "list", input: "what is here?", expectedTrajectory: [{ name: "ls" }] }),
    );
    const run = await cli([
      "eval",
      "set.jsonl",
      "--results",
      "out.json",
      "--junit",
      "out.xml",
      "--markdown",
      "out.md",
      "--html",
      "out.html",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("2/2 cases passed, score 1.000");
    expect(run.stdout).toContain("gate passed: score 1.000 ≥ 1");
    const result = parseEvalResult(await readFile(join(dir, "out.json"), "utf8"));
    expect(result.cases.map((entry) => [entry.caseId, entry.samples[0]?.toolCalls[0]?.name])).toEqual([
      ["read", "read"],
      ["list", "ls"],
    ]);
    expect(result.cases[0]?.samples[0]?.text).toContain("remember the milk");
    expect(await readFile(join(dir, "out.xml"), "utf8")).toContain(
      '<testsuite name="set.jsonl" tests="2" failures="0" errors="0"',
    );
    expect(await readFile(join(dir, "out.md"), "utf8")).toContain("| read | 1.000 | yes |");
    expect(await readFile(join(dir, "out.html"), "utf8")).toContain("<td>list</td>");
  });

  it("exits 1 below --min-score, printing the failing cases and the diff against a baseline", async () => {
    await writeFile(
      join(dir, "base.jsonl"),
      line({ id: "read", input: "read notes.txt", expectedTrajectory: [{ name: "read" }] }),
    );
    expect((await cli(["eval", "base.jsonl", "--results", "baseline.json"])).code).toBe(0);
    await writeFile(
      join(dir, "worse.jsonl"),
      line({ id: "read", input: "read notes.txt", expectedTrajectory: [{ name: "ls" }] }),
    );
    const run = await cli(["eval", "worse.jsonl", "--baseline", "baseline.json", "--min-score", "0.5"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("✗ read (score 0.000): trajectory:strict: call 1 is read, expected ls");
    expect(run.stdout).toContain("against the baseline: score 1.000 → 0.000");
    expect(run.stdout).toContain("  regressed: read");
    expect(run.stdout).toContain("gate failed: score 0.000 < 0.5");
  });

  it("names a bad dataset line, a bad agent module and a bad gate, with exit code 2", async () => {
    await writeFile(join(dir, "bad.jsonl"), `${line({ id: "a", input: "x" })}{oops\n`);
    const bad = await cli(["eval", "bad.jsonl"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^agentchart: .*bad\.jsonl:2: not JSON/);
    const module = await cli([
      "eval",
      "base.jsonl",
      "--agent",
      join(repoRoot, "test/fixtures/evals/not-a-suite.ts"),
    ]);
    expect(module.code).toBe(2);
    expect(module.stderr).toContain(
      "its default export must be { agent: (evalCase) => AgentOptions, scorers?, approve?, name? }",
    );
    expect((await cli(["eval", "missing.jsonl"])).code).toBe(2);
    expect((await cli(["eval", "base.jsonl", "--min-score", "2"])).code).toBe(2);
  });

  it("runs the same dataset on an OpenAI-compatible server when one is configured", async () => {
    const server = await OpenAITestServer.start();
    try {
      server.enqueue(
        streamReply([
          chunk({
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: "call_1",
                type: "function",
                function: { name: "read", arguments: '{"path":"notes.txt"}' },
              },
            ],
          }),
          chunk({}, "tool_calls"),
          usageChunk(100, 10),
        ]),
        streamReply([
          chunk({ role: "assistant", content: "It says: remember the milk." }),
          chunk({}, "stop"),
          usageChunk(150, 8),
        ]),
      );
      const run = await cli(["eval", "base.jsonl", "--concurrency", "1"], {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: server.baseURL,
      });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("remember the milk");
    } finally {
      await server.close();
    }
  });

  it("runs the 20-case example eval of the demo agent offline", async () => {
    vi.stubEnv("OPENAI_API_KEY", ""); // the suite goes online with a key
    const run = await cli(
      [
        "eval",
        "examples/evals/demo.jsonl",
        "--agent",
        "examples/evals/demo-suite.ts",
        "--results",
        join(dir, "demo.json"),
      ],
      {},
      repoRoot,
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("20/20 cases passed, score 1.000");
    expect(run.code).toBe(0);
    const result = parseEvalResult(await readFile(join(dir, "demo.json"), "utf8"));
    expect(result.scorers.map((entry) => [entry.scorer, entry.cases])).toEqual([
      ["trajectory:strict", 20],
      ["mentions", 20],
      ["each tool call is prepared before it runs", 20],
      ["withinBudget", 20],
    ]);
    expect(result.coverage.exercised).toBeGreaterThan(5);
    expect(result.coverage.missed).toContain("agent.idle on CONTINUE → agent.running");
  });
});
