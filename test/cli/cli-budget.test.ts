/**
 * `--budget` end to end, in a child process with the offline model: a pause asks on stderr and, with
 * no answer (stdin closed), stops the run before the held call; the status line shows the usage
 * against the budget; a bad `--budget` is refused, naming it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CliSandbox, createCliSandbox, runTs } from "../support/cli-process.js";

vi.setConfig({ testTimeout: 90_000 });

const MAIN = "src/cli/main.ts";
let sandbox: CliSandbox;

beforeEach(() => {
  sandbox = createCliSandbox();
});
afterEach(() => sandbox.cleanup());

const cli = (...args: string[]) =>
  runTs(MAIN, [...args, "--sessions-dir", sandbox.sessionsDir], { cwd: sandbox.cwd, env: sandbox.env });

describe("agentchart --budget", () => {
  it("asks at the pause; no answer stops the run before the held call, and the status line shows the budget", async () => {
    const result = await cli("--no-session", "--budget", '{"maxToolCalls":0}', "what is in here?");
    expect(result.stderr).toContain(
      "maxToolCalls for ls reached (0 of 0): [r]aise to 1 / [c]ontinue once / [s]top? ",
    );
    expect(result.stdout).not.toContain("✓ ls");
    expect(result.stderr).toMatch(/budget: model calls 1 · turns 1 · tool calls 0\/0 · /);
  });

  it("refuses a bad budget, naming the limit", async () => {
    const result = await cli("--no-session", "--budget", '{"maxTurns":-1}', "hi");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--budget: maxTurns must be a finite number, zero or more (got -1)");
  });
});
