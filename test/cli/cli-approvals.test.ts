import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REPL_PROMPT } from "../../src/cli/repl.js";
import {
  type CliSandbox,
  createCliSandbox,
  ProcessDriver,
  runTs,
  spawnTsInTerminal,
} from "../support/cli-process.js";

// Every case starts the CLI as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

const MAIN = "src/cli/main.ts";
let sandbox: CliSandbox;

beforeEach(() => {
  sandbox = createCliSandbox();
});
afterEach(() => sandbox.cleanup());

const cli = (...args: string[]) =>
  runTs(MAIN, [...args, "--sessions-dir", sandbox.sessionsDir], { cwd: sandbox.cwd, env: sandbox.env });
const terminal = (...args: string[]) =>
  new ProcessDriver(
    spawnTsInTerminal(MAIN, [...args, "--sessions-dir", sandbox.sessionsDir], {
      cwd: sandbox.cwd,
      env: sandbox.env,
    }),
  );
const made = (name: string) => existsSync(join(sandbox.cwd, name));
const trust = (tools: unknown) => {
  mkdirSync(join(sandbox.env.HOME as string, ".agentchart"), { recursive: true });
  writeFileSync(
    join(sandbox.env.HOME as string, ".agentchart", "config.json"),
    JSON.stringify({ trust: tools }),
  );
};

describe("approval of the built-in bash, write and edit", () => {
  it("asks in the REPL, in a terminal: n denies (nothing runs), y runs the command", async () => {
    const repl = terminal();
    await repl.waitFor(REPL_PROMPT);
    let from = repl.output.length;
    repl.child.stdin.write("run touch denied.txt\r");
    const denyQuestion = await repl.waitFor('allow bash {"command":"touch denied.txt"}? [y/N] ', from);
    repl.child.stdin.write("n\r");
    await repl.waitFor("The user denied this tool call", denyQuestion);
    await repl.waitFor(REPL_PROMPT, denyQuestion);
    expect(made("denied.txt")).toBe(false);

    from = repl.output.length;
    repl.child.stdin.write("run touch approved.txt\r");
    const allowQuestion = await repl.waitFor('allow bash {"command":"touch approved.txt"}? [y/N] ', from);
    repl.child.stdin.write("y\r");
    await repl.waitFor("✓ bash", allowQuestion);
    await repl.waitFor(REPL_PROMPT, allowQuestion);
    expect(made("approved.txt")).toBe(true);

    // ls reads only: it never asks.
    from = repl.output.length;
    repl.child.stdin.write("what is here?\r");
    const listed = await repl.waitFor("✓ ls", from);
    expect(repl.output.slice(from, listed)).not.toContain("allow ");
    await repl.waitFor(REPL_PROMPT, listed);
    repl.child.stdin.write("/quit\r");
    expect(await repl.exited).toBe(0);
  });

  it("Ctrl-C while a question is open: the stale answer is one line naming DENY_TOOL and the call", async () => {
    const repl = terminal();
    await repl.waitFor(REPL_PROMPT);
    const from = repl.output.length;
    repl.child.stdin.write("run touch never.txt\r");
    const question = await repl.waitFor('allow bash {"command":"touch never.txt"}? [y/N] ', from);
    repl.child.stdin.write("\x03"); // Ctrl-C on the terminal
    const refused = await repl.waitFor("not applied (not_waiting): DENY_TOOL: no tool call", question);
    const end = await repl.waitFor(REPL_PROMPT, refused);
    const after = repl.output.slice(question, end);
    expect(after).toContain("aborting the turn");
    expect(after).toMatch(
      /not applied \(not_waiting\): DENY_TOOL: no tool call "[^"]+" is awaiting approval/,
    );
    expect(after).not.toMatch(/\n\s+at /);
    expect(made("never.txt")).toBe(false);
    repl.child.stdin.write("/quit\r");
    expect(await repl.exited).toBe(0);
  });

  it("asks a one-shot run in a terminal too, on the terminal", async () => {
    const run = terminal("run touch once.txt");
    const question = await run.waitFor('allow bash {"command":"touch once.txt"}? [y/N] ');
    run.child.stdin.write("y\r");
    await run.waitFor("✓ bash", question);
    expect(await run.exited).toBe(0);
    expect(made("once.txt")).toBe(true);
  });

  it("refuses bash, write and edit in a one-shot run nobody can answer (stdin ended), naming --yes and trust", async () => {
    const bash = await cli("--no-session", "run touch refused.txt");
    expect(bash.code).toBe(0);
    expect(bash.stderr).toContain('allow bash {"command":"touch refused.txt"}? [y/N] ');
    expect(bash.stdout).toContain(
      'Not approved: nobody could answer (run with --yes, or add "bash" to "trust" in ~/.agentchart/config.json)',
    );
    expect(made("refused.txt")).toBe(false);

    const write = await cli("--no-session", 'call write {"path":"new.txt","content":"x"}');
    expect(write.stdout).toContain('add "write" to "trust"');
    expect(made("new.txt")).toBe(false);
    const edit = await cli(
      "--no-session",
      'call edit {"path":"notes.txt","oldText":"alpha","newText":"gamma"}',
    );
    expect(edit.stdout).toContain('add "edit" to "trust"');
  });

  it("runs them without asking with --yes, or when ~/.agentchart/config.json trusts them", async () => {
    const yes = await cli("--no-session", "--yes", "run touch with-yes.txt");
    expect(yes.stderr).not.toContain("allow bash");
    expect(made("with-yes.txt")).toBe(true);

    trust(["bash"]);
    const trusted = await cli("--no-session", "run touch trusted.txt");
    expect(trusted.stderr).not.toContain("allow bash");
    expect(made("trusted.txt")).toBe(true);
    // Trusting bash does not trust write.
    const write = await cli("--no-session", 'call write {"path":"new.txt","content":"x"}');
    expect(write.stderr).toContain("allow write");
    expect(made("new.txt")).toBe(false);
  });

  it("rejects a config whose trust is not a list of tool names, naming the file", async () => {
    trust("bash");
    const result = await cli("--no-session", "hello");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('config.json: "trust" must be a list of tool names');
  });
});
