import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REPL_PROMPT } from "../../src/cli/repl.js";
import {
  type CliSandbox,
  createCliSandbox,
  ProcessDriver,
  type ProcessResult,
  runTs,
  spawnTs,
  spawnTsInTerminal,
} from "../support/cli-process.js";

// Every case starts the CLI as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

const MAIN = "src/cli/main.ts";
let sandbox: CliSandbox;

/** A sub-agent that may run commands: its bash asks for approval like the root's. */
const HELPER = [
  "---",
  "name: helper",
  "description: Runs commands in the project for you",
  "tools: Bash, ls",
  "---",
  "You run the commands you are asked to run, and say what happened.",
  "",
].join("\n");

const writeAgent = (base: string, file: string, text: string) => {
  mkdirSync(join(base, ".agentchart", "agents"), { recursive: true });
  writeFileSync(join(base, ".agentchart", "agents", file), text);
};

beforeEach(() => {
  sandbox = createCliSandbox();
  writeAgent(sandbox.cwd, "helper.md", HELPER);
});
afterEach(() => sandbox.cleanup());

const args = (...rest: string[]) => [...rest, "--sessions-dir", sandbox.sessionsDir];
const made = (name: string) => existsSync(join(sandbox.cwd, name));

/** Runs the CLI with `input` piped to its stdin (then closed). */
function cliWithInput(input: string, ...rest: string[]): Promise<ProcessResult> {
  const child = spawnTs(MAIN, args(...rest), { cwd: sandbox.cwd, env: sandbox.env });
  child.stdin.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("sub-agents from .agentchart/agents", () => {
  it("runs one as a tool: its events show indented under the call, its bash approval is asked and answered", async () => {
    const result = await cliWithInput("y\n", "--no-session", 'call helper {"task":"run touch made.txt"}');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('allow bash {"command":"touch made.txt"} (sub-agent helper)? [y/N] ');
    expect(made("made.txt")).toBe(true);
    const lines = result.stdout.split("\n");
    const call = lines.indexOf('⚙ helper {"task":"run touch made.txt"}');
    const done = lines.findIndex((line) => line.startsWith('✓ helper {"task":"run touch made.txt"} →'));
    expect(call).toBeGreaterThanOrEqual(0);
    expect(done).toBeGreaterThan(call);
    // Between the root's call and its result: only the child's lines, each indented and named.
    expect(lines.slice(call + 1, done)).toEqual([
      "  helper› The user wants a command run. I will use bash.",
      '  helper› ⚙ bash {"command":"touch made.txt"}',
      '  helper› ✓ bash {"command":"touch made.txt"} → 1 line',
      '  helper› You asked: "run touch made.txt". The bash tool returned 1 line(s):',
      "  helper› (no output)",
      "  helper› This is the first prompt of this conversation.",
    ]);
    // The root answers from the child's reply.
    expect(lines.slice(done + 1).join("\n")).toContain('You asked: "run touch made.txt".');
  });

  it("refuses the child's bash when nobody can answer, and the refusal shows under the call", async () => {
    const result = await runTs(MAIN, args("--no-session", 'call helper {"task":"run touch refused.txt"}'), {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('allow bash {"command":"touch refused.txt"} (sub-agent helper)? [y/N] ');
    expect(result.stdout).toContain(
      '  helper› ✗ bash {"command":"touch refused.txt"} → error: Tool call denied: Not approved: nobody could answer',
    );
    expect(made("refused.txt")).toBe(false);
  });

  it("keeps the child's messages out of the session: it holds the top-level turn only and continues cleanly", async () => {
    const first = await cliWithInput("y\n", 'call helper {"task":"run echo hi"}');
    expect(first.code).toBe(0);
    const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    const file = readdirSync(sandbox.sessionsDir, { recursive: true, encoding: "utf8" }).find((name) =>
      name.endsWith(`${id}.jsonl`),
    );
    const roles = readFileSync(join(sandbox.sessionsDir, file!), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string; toolName?: string } })
      .filter((entry) => entry.type === "message")
      .map(
        (entry) => `${entry.message!.role}${entry.message!.toolName ? `:${entry.message!.toolName}` : ""}`,
      );
    expect(roles).toEqual(["user", "assistant", "toolResult:helper", "assistant"]);
    // Continued, the model sees the first prompt as the one earlier request (not the child's task).
    const second = await runTs(MAIN, args("--continue", "what is here?"), {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    expect(second.stdout).toContain(
      'Earlier in this conversation you asked: "call helper {"task":"run echo hi"}".',
    );
  });

  it("reports a malformed agent file naming the file and the field, and still loads the others", async () => {
    writeAgent(sandbox.cwd, "broken.md", "---\nname: broken\ntools: 42\n---\nBody\n");
    const result = await cliWithInput("y\n", "--no-session", 'call helper {"task":"run touch ok.txt"}');
    const broken = join(sandbox.cwd, ".agentchart", "agents", "broken.md");
    expect(result.stderr).toContain(`error: ${broken}: "description" is required`);
    expect(result.stderr).toContain(
      `error: ${broken}: "tools" must be a comma list or a list of tool names, got 42`,
    );
    expect(made("ok.txt")).toBe(true);
    // The broken agent is no tool: calling it is the model calling an unknown tool.
    const unknown = await runTs(MAIN, args("--no-session", 'call broken {"task":"x"}'), {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    expect(unknown.stdout).toMatch(/✗ broken .*→ error: .*broken/);
  });

  it("in the REPL on a terminal: /agents lists project and home agents, a child's approval is asked and answered", async () => {
    writeAgent(
      sandbox.env.HOME as string,
      "planner.md",
      "---\nname: planner\ndescription: Plans work\n---\nYou plan.\n",
    );
    const repl = new ProcessDriver(spawnTsInTerminal(MAIN, args(), { cwd: sandbox.cwd, env: sandbox.env }));
    await repl.waitFor(REPL_PROMPT);
    const listed = await repl.send("/agents\r", REPL_PROMPT);
    expect(listed).toContain("helper  Runs commands in the project for you");
    expect(listed).toContain("planner  Plans work");

    const from = repl.output.length;
    repl.child.stdin.write('call helper {"task":"run touch from-repl.txt"}\r');
    const question = await repl.waitFor(
      'allow bash {"command":"touch from-repl.txt"} (sub-agent helper)? [y/N] ',
      from,
    );
    expect(made("from-repl.txt")).toBe(false);
    repl.child.stdin.write("y\r");
    await repl.waitFor('  helper› ✓ bash {"command":"touch from-repl.txt"} → 1 line', question);
    await repl.waitFor('✓ helper {"task":"run touch from-repl.txt"} →', question);
    await repl.waitFor(REPL_PROMPT, question);
    expect(made("from-repl.txt")).toBe(true);
    repl.child.stdin.write("/quit\r");
    expect(await repl.exited).toBe(0);
  });
});
