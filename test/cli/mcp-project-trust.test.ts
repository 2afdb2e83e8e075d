import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { consentToProjectServers, MCP_CONSENT_FILE, mcpCommandLine } from "../../src/cli/mcp-consent.js";
import { loadCliMcpConfig } from "../../src/cli/mcp-setup.js";

let base: string;
let home: string;
let project: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "agentchart-mcp-trust-"));
  home = join(base, "home");
  project = join(base, "project");
  mkdirSync(join(home, ".agentchart"), { recursive: true });
  mkdirSync(join(project, ".agentchart"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const writeConfig = (folder: string, servers: Record<string, unknown>) =>
  writeFileSync(join(folder, ".agentchart", "mcp.json"), JSON.stringify({ mcpServers: servers }));

const tool = { command: "node", args: ["server.js", "--root", "a folder"] };

describe("a project's MCP configuration", () => {
  it("adds servers but never trusts them: its trust and requiresApproval are dropped, yours are kept", async () => {
    writeConfig(home, { mine: { ...tool, trust: true } });
    writeConfig(project, {
      theirs: { ...tool, trust: true, requiresApproval: false },
      web: { url: "http://127.0.0.1:9/mcp", trust: true },
    });
    const config = await loadCliMcpConfig(project, home);
    expect(config.mcpServers.mine).toMatchObject({ trust: true });
    expect(config.mcpServers.theirs).toEqual(tool);
    expect(config.mcpServers.web).toEqual({ url: "http://127.0.0.1:9/mcp" });
    expect([...config.fromProject].sort()).toEqual(["theirs", "web"]);

    // A file you name with --mcp-config is yours: its entry replaces the project's, trust and all.
    writeFileSync(
      join(project, "mine.json"),
      JSON.stringify({ mcpServers: { theirs: { ...tool, trust: true } } }),
    );
    const named = await loadCliMcpConfig(project, home, "mine.json");
    expect(named.mcpServers.theirs).toMatchObject({ trust: true });
    expect([...named.fromProject]).toEqual(["web"]);
  });

  it("reads the home folder's file as yours when the CLI runs in the home folder", async () => {
    writeConfig(home, { mine: { ...tool, trust: true } });
    const config = await loadCliMcpConfig(home, home);
    expect(config.mcpServers.mine).toMatchObject({ trust: true });
    expect(config.fromProject.size).toBe(0);
  });
});

describe("consent to start a project's MCP server command", () => {
  const warnings: string[] = [];
  const options = (ask: ((question: string) => Promise<string | undefined>) | undefined, yes = false) => ({
    home,
    project,
    yes,
    ask,
    warn: (line: string) => warnings.push(line),
  });
  beforeEach(() => {
    warnings.length = 0;
  });

  it("leaves the server out when nobody can answer, saying how to allow it", async () => {
    writeConfig(project, { theirs: tool, web: { url: "http://127.0.0.1:9/mcp" } });
    const allowed = await consentToProjectServers(await loadCliMcpConfig(project, home), options(undefined));
    expect(Object.keys(allowed.mcpServers)).toEqual(["web"]);
    expect(warnings).toEqual([
      `warning: MCP server "theirs" of this project was not started (node server.js --root "a folder"): run agentchart in a terminal to allow it, or pass --yes`,
    ]);
  });

  it("asks once: a yes is remembered in the home folder for this project and this exact command", async () => {
    writeConfig(project, { theirs: tool });
    const questions: string[] = [];
    const yes = async (question: string) => {
      questions.push(question);
      return "y";
    };
    const first = await consentToProjectServers(await loadCliMcpConfig(project, home), options(yes));
    expect(Object.keys(first.mcpServers)).toEqual(["theirs"]);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('starts the MCP server "theirs": node server.js --root "a folder"');
    const remembered = JSON.parse(readFileSync(join(home, ".agentchart", MCP_CONSENT_FILE), "utf8"));
    expect(remembered).toEqual({ [project]: [mcpCommandLine(tool)] });

    const again = await consentToProjectServers(await loadCliMcpConfig(project, home), options(undefined));
    expect(Object.keys(again.mcpServers)).toEqual(["theirs"]);
    expect(warnings).toEqual([]);

    // The project changes the command (or its environment): asked again.
    writeConfig(project, { theirs: { ...tool, env: { NODE_OPTIONS: "--require ./evil.js" } } });
    const changed = await consentToProjectServers(await loadCliMcpConfig(project, home), options(undefined));
    expect(changed.mcpServers).toEqual({});
  });

  it("leaves the server out on any answer but yes, and starts it without asking or remembering with --yes", async () => {
    writeConfig(project, { theirs: tool });
    const no = await consentToProjectServers(
      await loadCliMcpConfig(project, home),
      options(async () => "n"),
    );
    expect(no.mcpServers).toEqual({});
    expect(warnings[0]).toContain("not allowed; you will be asked again next time");
    const withYes = await consentToProjectServers(
      await loadCliMcpConfig(project, home),
      options(undefined, true),
    );
    expect(Object.keys(withYes.mcpServers)).toEqual(["theirs"]);
    expect(() => readFileSync(join(home, ".agentchart", MCP_CONSENT_FILE))).toThrow();
  });
});
