import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MCP_CONSENT_FILE, mcpCommandLine } from "../../src/cli/mcp-consent.js";
import { REPL_PROMPT } from "../../src/cli/repl.js";
import { type CliSandbox, createCliSandbox, ProcessDriver, runTs, spawnTs } from "../support/cli-process.js";
import { packageServerEntry, testServerEntry } from "../support/mcp-support.js";

// Every case starts the CLI (tsx transpiles on start) and MCP servers as child processes.
vi.setConfig({ testTimeout: 90_000 });

const MAIN = "src/cli/main.ts";
let sandbox: CliSandbox;
let configFile: string;

beforeEach(() => {
  sandbox = createCliSandbox();
  configFile = join(sandbox.cwd, "servers.json");
  writeFileSync(configFile, JSON.stringify({ mcpServers: { t: testServerEntry() } }));
});
afterEach(() => sandbox.cleanup());

const cliArgs = (...args: string[]) => [...args, "--no-session", "--sessions-dir", sandbox.sessionsDir];
const cli = (...args: string[]) => runTs(MAIN, cliArgs(...args), { cwd: sandbox.cwd, env: sandbox.env });

describe("the CLI with MCP servers", () => {
  it("--mcp-config connects the servers, shows them in the banner and lets the offline model call a tool", async () => {
    const result = await cli("--mcp-config", "servers.json", "--yes", 'call t__echo {"text":"hello mcp"}');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/mcp: t \(\d+ tools\)/);
    expect(result.stdout).toContain('⚙ t__echo {"text":"hello mcp"}');
    expect(result.stdout).toContain("✓ t__echo");
    expect(result.stdout).toContain("The t__echo tool returned 1 line(s):\nhello mcp");
  });

  it("asks for approval: an answer of y runs the tool, no answer denies it", async () => {
    const prompt = 'call t__echo {"text":"approved"}';
    const child = spawnTs(MAIN, cliArgs("--mcp-config", configFile, prompt), {
      cwd: sandbox.cwd,
      env: sandbox.env,
    });
    const driver = new ProcessDriver(child);
    const asked = new Promise<void>((resolve) => {
      child.stderr.on("data", () => {
        if (driver.stderr.includes("allow t__echo")) resolve();
      });
    });
    await asked;
    child.stdin.end("y\n");
    expect(await driver.exited).toBe(0);
    expect(driver.stderr).toContain('allow t__echo {"text":"approved"}? [y/N]');
    expect(driver.output).toContain("✓ t__echo");
    expect(driver.output).toContain("approved");

    const denied = await cli("--mcp-config", configFile, 'call t__echo {"text":"nobody answers"}');
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain("✗ t__echo");
    expect(denied.stdout).toContain("Not approved: nobody could answer (run with --yes");
  });

  it("reads .agentchart/mcp.json: starts its commands you allowed, never trusts them, warns about a server that fails, and lists them with /mcp", async () => {
    mkdirSync(join(sandbox.cwd, ".agentchart"));
    const fs = packageServerEntry("@modelcontextprotocol/server-filesystem", "dist/index.js", ".");
    const broken = { command: "/nonexistent/agentchart-mcp-server" };
    writeFileSync(
      join(sandbox.cwd, ".agentchart", "mcp.json"),
      JSON.stringify({ mcpServers: { fs: { ...fs, trust: true }, broken } }),
    );
    // Allowed earlier (as a yes at the terminal remembers it), in the home folder.
    mkdirSync(join(sandbox.home, ".agentchart"), { recursive: true });
    writeFileSync(
      join(sandbox.home, ".agentchart", MCP_CONSENT_FILE),
      JSON.stringify({ [sandbox.cwd]: [mcpCommandLine(fs), mcpCommandLine(broken)] }),
    );
    const repl = new ProcessDriver(spawnTs(MAIN, cliArgs(), { cwd: sandbox.cwd, env: sandbox.env }));
    const bannerEnd = await repl.waitFor(REPL_PROMPT);
    expect(repl.output.slice(0, bannerEnd)).toMatch(/mcp: fs \(\d+ tools\), broken \(failed\)/);
    expect(repl.stderr).toContain('warning: MCP server "broken" failed to start');
    expect(repl.stderr).not.toContain('MCP server "broken": MCP server "broken"');

    const listing = await repl.send("/mcp", REPL_PROMPT);
    expect(listing).toContain("fs: connected over stdio");
    expect(listing).toContain("  fs__read_text_file");
    expect(listing).toContain("broken: failed");

    // The project's "trust": true is ignored: the call asks.
    const question = await repl.send('call fs__read_text_file {"path":"notes.txt"}', "[y/N] ");
    expect(question).toContain("allow fs__read_text_file");
    const answer = await repl.send("y", REPL_PROMPT);
    expect(answer).toContain("✓ fs__read_text_file");
    expect(answer).toContain("alpha\nbeta");
    repl.child.stdin.end();
    expect(await repl.exited).toBe(0);
  });

  it("does not start a command of .agentchart/mcp.json nobody allowed, and says how to allow it", async () => {
    mkdirSync(join(sandbox.cwd, ".agentchart"));
    writeFileSync(
      join(sandbox.cwd, ".agentchart", "mcp.json"),
      JSON.stringify({ mcpServers: { t: { ...testServerEntry(), trust: true } } }),
    );
    const result = await cli('call t__echo {"text":"never"}');
    expect(result.stderr).toContain('MCP server "t" of this project was not started');
    expect(result.stderr).toContain("pass --yes");
    expect(result.stderr).not.toMatch(/mcp: t/);
    expect(result.stdout).not.toContain("✓ t__echo");
  });

  it("asks for approval in the REPL: the next line answers, n denies and y allows", async () => {
    const repl = new ProcessDriver(
      spawnTs(MAIN, cliArgs("--mcp-config", configFile), { cwd: sandbox.cwd, env: sandbox.env }),
    );
    await repl.waitFor(REPL_PROMPT);
    const question = await repl.send('call t__echo {"text":"first"}', "[y/N] ");
    expect(question).toContain('allow t__echo {"text":"first"}?');
    const denied = await repl.send("n", REPL_PROMPT);
    expect(denied).toContain("✗ t__echo");
    expect(denied).toContain("The user denied this tool call");

    await repl.send('call t__echo {"text":"second"}', "[y/N] ");
    const allowed = await repl.send("y", REPL_PROMPT);
    expect(allowed).toContain("✓ t__echo");
    expect(allowed).toContain("The t__echo tool returned 1 line(s):\nsecond");
    repl.child.stdin.end();
    expect(await repl.exited).toBe(0);
  });

  it("drops a question left open by Ctrl-C: the next line is a prompt again", async () => {
    const repl = new ProcessDriver(
      spawnTs(MAIN, cliArgs("--mcp-config", configFile), { cwd: sandbox.cwd, env: sandbox.env }),
    );
    await repl.waitFor(REPL_PROMPT);
    await repl.send('call t__echo {"text":"first"}', "[y/N] ");
    const from = repl.output.length;
    repl.child.kill("SIGINT");
    await repl.waitFor(REPL_PROMPT, from);
    const question = await repl.send('call t__echo {"text":"again"}', "[y/N] ");
    expect(question).toContain('allow t__echo {"text":"again"}?');
    const allowed = await repl.send("y", REPL_PROMPT);
    expect(allowed).toContain("✓ t__echo");
    repl.child.stdin.end();
    expect(await repl.exited).toBe(0);
  });

  it("rejects an --mcp-config file that is not a valid configuration, naming the file", async () => {
    writeFileSync(configFile, JSON.stringify({ mcpServers: { t: { args: [] } } }));
    const result = await cli("--mcp-config", configFile, "hello");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`agentchart: ${configFile} is invalid:`);
    expect(result.stderr).toContain("mcpServers.t");
  });
});
