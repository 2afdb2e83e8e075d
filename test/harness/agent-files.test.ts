import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentFileTools, loadAgentFiles, parseAgentFile } from "../../src/harness/resources/agent-files.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { SubAgentSpec } from "../../src/types/sub-agent.js";
import type { AgentTool } from "../../src/types/tool.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/agents");
const PROJECT = path.join(FIXTURES, "project");
const USER = path.join(FIXTURES, "user");
const roots = [
  { path: PROJECT, source: "project" },
  { path: USER, source: "user" },
];

const tool = (name: string): AgentTool =>
  defineTool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({}),
    execute: async () => ({ content: [{ type: "text", text: name }] }),
  });
/** The child agent a call of an agent tool would run. */
const specOf = (agentTool: AgentTool) => agentTool.subAgent!.agent({ task: "x" }) as SubAgentSpec;
const builtins = ["read", "write", "edit", "bash", "ls"].map(tool);

describe("loadAgentFiles on the agent fixtures", () => {
  it("loads the valid files of both roots, project first, with their fields and body", async () => {
    const { agents } = await loadAgentFiles(roots);
    expect(agents.map((agent) => `${agent.source}:${agent.name}`)).toEqual([
      "project:code-reviewer",
      "project:generalist",
      "project:planner",
      "user:researcher",
    ]);
    const [reviewer, generalist, planner] = agents;
    expect(reviewer).toEqual({
      name: "code-reviewer",
      description: "Reviews changed code for quality and security. Use it after you change code.",
      tools: ["Read", "Ls", "Bash"],
      systemPrompt:
        "You are a careful code reviewer.\n\nWhen you are called:\n1. Look at the files you are pointed to.\n2. List the problems you find, most serious first.\n3. Say what you would change, briefly.",
      filePath: path.join(PROJECT, "code-reviewer.md"),
      source: "project",
    });
    // `model: inherit` and no `model` both mean the parent's model; no `tools` means "inherit" too.
    expect(reviewer).not.toHaveProperty("model");
    expect(generalist).not.toHaveProperty("tools");
    expect(generalist).not.toHaveProperty("model");
    // A YAML list of tools, a folded multi-line description, a model id.
    expect(planner).toMatchObject({
      tools: ["read", "ls"],
      description: "Breaks a large task into small steps.",
      model: "gpt-4.1-mini",
    });
  });

  it("reports each malformed file naming the file and the field, and keeps loading the others", async () => {
    const { diagnostics } = await loadAgentFiles(roots);
    const errors = diagnostics
      .filter((diagnostic) => diagnostic.severity === "error")
      .map((diagnostic) => `${path.basename(diagnostic.path)}: ${diagnostic.message}`);
    expect(errors).toEqual([
      `bad-name.md: "name" must be 1-64 letters, digits, "_" or "-" (it names a tool), got "code reviewer"`,
      'bad-tools.md: "tools" must be a comma list or a list of tool names, got 42',
      expect.stringMatching(/^invalid-yaml\.md: invalid YAML front matter: /),
      'missing-description.md: "description" is required',
      'no-front-matter.md: no front matter: an agent file starts with a "---" header giving name and description',
    ]);
    expect(diagnostics.find((d) => d.path.endsWith("bad-tools.md"))).toMatchObject({
      code: "invalid_metadata",
      source: "project",
    });
    expect(diagnostics.find((d) => d.path.endsWith("invalid-yaml.md"))?.code).toBe("parse_failed");
  });

  it("warns about unknown fields and a name defined twice (the first root wins)", async () => {
    const { diagnostics } = await loadAgentFiles(roots);
    const warnings = diagnostics.filter((diagnostic) => diagnostic.severity === "warning");
    expect(warnings).toEqual([
      {
        severity: "warning",
        code: "unknown_field",
        path: path.join(PROJECT, "planner.md"),
        message: "unknown front matter field(s): color; ignored",
        source: "project",
      },
      {
        severity: "warning",
        code: "collision",
        path: path.join(USER, "code-reviewer.md"),
        message: `agent "code-reviewer" is already defined by ${path.join(PROJECT, "code-reviewer.md")}; this one is ignored`,
        source: "user",
      },
    ]);
  });

  describe("with a folder of its own", () => {
    let dir: string | undefined;
    afterEach(async () => {
      if (dir) await fs.rm(dir, { recursive: true, force: true });
    });

    it("skips a missing root, hidden files, other extensions and folders, without a diagnostic", async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), "agent-files-"));
      const good = "---\nname: helper\ndescription: Helps\n---\nYou help.";
      await fs.writeFile(path.join(dir, "helper.md"), good);
      await fs.writeFile(path.join(dir, ".hidden.md"), good.replace("helper", "hidden"));
      await fs.writeFile(path.join(dir, "notes.txt"), good.replace("helper", "notes"));
      // A folder named like an agent file cannot be read as one.
      await fs.mkdir(path.join(dir, "folder.md"));
      const { agents, diagnostics } = await loadAgentFiles([dir, path.join(dir, "missing")]);
      expect(agents.map((agent) => agent.name)).toEqual(["helper"]);
      expect(diagnostics).toEqual([]);
    });
  });
});

describe("parseAgentFile", () => {
  it("reads an empty tools list as no tools, a blank `tools:` as inherit, and warns about an empty body", () => {
    const none = parseAgentFile("---\nname: a\ndescription: d\ntools: []\n---\n", "/a.md");
    expect(none.agent?.tools).toEqual([]);
    expect(none.diagnostics.map((d) => d.message)).toEqual([
      "the body (the sub-agent's system prompt) is empty",
    ]);
    const inherit = parseAgentFile("---\nname: a\ndescription: d\ntools:\n---\nBody", "/a.md");
    expect(inherit.agent).not.toHaveProperty("tools");
    expect(inherit.diagnostics).toEqual([]);
  });

  it("accepts the JSON header form and warns when model is not a string", () => {
    const parsed = parseAgentFile('{"name": "j", "description": "json", "model": 4}\n---\nBody', "/j.md");
    expect(parsed.agent).toMatchObject({ name: "j", description: "json", systemPrompt: "Body" });
    expect(parsed.agent).not.toHaveProperty("model");
    expect(parsed.diagnostics.map((d) => `${d.severity}: ${d.message}`)).toEqual([
      `warning: "model" must be a model id (a string); the parent's model is used`,
    ]);
  });

  it("reports every broken field of one file at once", () => {
    const parsed = parseAgentFile("---\nname: 7 7\ndescription: {a: 1}\ntools: [1]\n---\nBody", "/x.md");
    expect(parsed.agent).toBeUndefined();
    expect(parsed.diagnostics.map((d) => d.message)).toEqual([
      '"description" must be a string, got {"a":1}',
      `"name" must be 1-64 letters, digits, "_" or "-" (it names a tool), got "7 7"`,
      '"tools" must be a comma list or a list of tool names, got [1]',
    ]);
  });
});

describe("agentFileTools", () => {
  it("makes one agent tool per definition with a `task` parameter, the body as the child's system prompt", async () => {
    const { agents } = await loadAgentFiles(roots);
    const { tools, diagnostics } = agentFileTools(agents, { tools: () => builtins });
    expect(diagnostics).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(["code-reviewer", "generalist", "planner", "researcher"]);
    const reviewer = tools[0]!;
    expect(reviewer.description).toBe(agents[0]!.description);
    expect(reviewer.jsonSchema).toMatchObject({
      type: "object",
      properties: { task: { type: "string" } },
      required: ["task"],
    });
    expect(reviewer.subAgent?.input({ task: "review src/a.ts" })).toBe("review src/a.ts");
    const spec = specOf(reviewer);
    expect(spec.systemPrompt).toBe(agents[0]!.systemPrompt);
    // `Read, Ls, Bash` (Claude Code's spelling) find the lowercase tools; no model: the parent's.
    expect(spec.tools?.map((t) => t.name)).toEqual(["read", "ls", "bash"]);
    expect(spec.model).toBeUndefined();
  });

  it("gives a definition without `tools` every tool but the agent tools, and lets `tools` name another agent", async () => {
    const { agents } = await loadAgentFiles(roots);
    const { tools } = agentFileTools(agents, { tools: () => builtins });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const generalist = specOf(byName.get("generalist")!);
    expect(generalist.tools?.map((t) => t.name)).toEqual(["read", "write", "edit", "bash", "ls"]);
    const researcher = specOf(byName.get("researcher")!);
    expect(researcher.tools?.map((t) => t.name)).toEqual(["ls", "read", "planner"]);
    expect(researcher.tools?.[2]).toBe(byName.get("planner"));
  });

  it("reads the tools again when a child starts (tools that come and go) and resolves the model id", () => {
    const current = [...builtins];
    const text = "---\nname: m\ndescription: d\ntools: ls, mcp__x\nmodel: big-1\n---\nB";
    const agents = [parseAgentFile(text, "/m.md").agent!];
    const seen: string[] = [];
    const { tools, diagnostics } = agentFileTools(agents, {
      tools: () => current,
      resolveModel: (id) => {
        seen.push(id);
        return { id, api: "scripted", provider: "test", contextWindow: 1000, maxTokens: 100 };
      },
    });
    expect(diagnostics.map((d) => `${d.severity} ${d.path}: ${d.message}`)).toEqual([
      'warning /m.md: "tools": no tool is named "mcp__x"; the sub-agent runs without it',
    ]);
    expect(specOf(tools[0]!).tools?.map((t) => t.name)).toEqual(["ls"]);
    current.push(tool("mcp__x"));
    const spec = specOf(tools[0]!);
    expect(spec.tools?.map((t) => t.name)).toEqual(["ls", "mcp__x"]);
    expect(spec.model?.id).toBe("big-1");
    expect(seen).toEqual(["big-1"]);
  });

  it("leaves out a definition whose name is an existing tool's, with an error naming its file", () => {
    const clash = parseAgentFile("---\nname: bash\ndescription: d\n---\nB", "/agents/bash.md", "project")
      .agent!;
    const ok = parseAgentFile("---\nname: ok\ndescription: d\n---\nB", "/agents/ok.md").agent!;
    const { tools, diagnostics } = agentFileTools([clash, ok], { tools: () => builtins });
    expect(tools.map((t) => t.name)).toEqual(["ok"]);
    expect(diagnostics).toEqual([
      {
        severity: "error",
        code: "collision",
        path: "/agents/bash.md",
        message: '"name": a tool named "bash" already exists; this agent file is not loaded',
        source: "project",
      },
    ]);
  });
});
