import fs from "node:fs/promises";
import path from "node:path";
import { defineAgentTool } from "../../tools/define-agent-tool.js";
import { assertToolName } from "../../tools/define-tool.js";
import { errorText } from "../../types/error-text.js";
import type { Model } from "../../types/model.js";
import { resolveModel } from "../../types/resolve-model.js";
import type { AgentTool } from "../../types/tool.js";
import { FrontMatterError, splitFrontMatter } from "./front-matter.js";
import { listMarkdownFiles } from "./markdown-files.js";
import { failureDiagnostic, withSource } from "./resource-diagnostics.js";
import type { ResourceDiagnostic, ResourceRoot } from "./skill-types.js";

/**
 * A sub-agent defined by a Markdown file with front matter (`.agentchart/agents/<name>.md`, the shape
 * of Claude Code's `.claude/agents/*.md`): `name`, `description`, `tools`, `model`; the body is its
 * system prompt.
 */
export interface AgentDefinition {
  /** Front matter `name`: the agent tool's name (1-64 letters, digits, "_" or "-"). */
  name: string;
  /** Front matter `description`, on one line: what the parent model reads to decide to call it. */
  description: string;
  /**
   * Front matter `tools`: the names of the tools the sub-agent may use (a comma list or a YAML list);
   * absent, every tool of the parent except agent tools; `[]`, none.
   */
  tools?: string[];
  /** Front matter `model`: a model id; absent (or `inherit`), the parent's model. */
  model?: string;
  /** The body after the front matter, trimmed. */
  systemPrompt: string;
  /** Absolute path of the agent file. */
  filePath: string;
  /** Label of the root it came from (e.g. "project", "user"), when given. */
  source?: string;
}

/** What `loadAgentFiles` returns. Diagnostics never stop the other files loading. */
export interface LoadAgentFilesResult {
  agents: AgentDefinition[];
  diagnostics: ResourceDiagnostic[];
}

/** Outcome of parsing one agent file: the definition (unless an error dropped it) and the problems. */
export interface ParsedAgentFile {
  agent?: AgentDefinition;
  diagnostics: ResourceDiagnostic[];
}

/** `model: inherit` (Claude Code's word) means the parent's model, as leaving it out does. */
const INHERIT_MODEL = "inherit";
const KNOWN_FIELDS = new Set(["name", "description", "tools", "model"]);

/**
 * Loads sub-agent definitions from the `*.md` files of `roots` (not recursive, name order, hidden
 * files skipped; a root may also be one `.md` file; missing roots are skipped). When two files define
 * the same name the first found wins (list the project's folder before the user's) and the other
 * gets a `collision` warning.
 *
 * Contract: async, never rejects: an unreadable file, malformed front matter or a missing or
 * malformed field becomes an `error` diagnostic naming the file and the field, and that file is
 * left out; the other files still load.
 *
 * ```ts
 * import { createBuiltinTools } from "agentchart/node";
 * const builtinTools = createBuiltinTools();
 * const { agents, diagnostics } = await loadAgentFiles([{ path: ".agentchart/agents", source: "project" }]);
 * const { tools } = agentFileTools(agents, { tools: () => builtinTools });
 * ```
 */
export async function loadAgentFiles(roots: readonly ResourceRoot[]): Promise<LoadAgentFilesResult> {
  const diagnostics: ResourceDiagnostic[] = [];
  const files: { filePath: string; source: string | undefined }[] = [];
  for (const root of roots) {
    const { path: rootPath, source } = typeof root === "string" ? { path: root, source: undefined } : root;
    for (const filePath of await listMarkdownFiles(path.resolve(rootPath), source, diagnostics))
      files.push({ filePath, source });
  }
  const parsed = await Promise.all(files.map(({ filePath, source }) => readAgentFile(filePath, source)));
  const agents: AgentDefinition[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const result of parsed) {
    diagnostics.push(...result.diagnostics);
    const agent = result.agent;
    if (agent === undefined) continue;
    const existing = byName.get(agent.name);
    if (existing !== undefined) {
      if (existing.filePath !== agent.filePath) {
        const message = `agent "${agent.name}" is already defined by ${existing.filePath}; this one is ignored`;
        diagnostics.push(
          withSource({ severity: "warning", code: "collision", path: agent.filePath, message }, agent.source),
        );
      }
      continue;
    }
    byName.set(agent.name, agent);
    agents.push(agent);
  }
  return { agents, diagnostics };
}

async function readAgentFile(filePath: string, source: string | undefined): Promise<ParsedAgentFile> {
  try {
    return parseAgentFile(await fs.readFile(filePath, "utf8"), filePath, source);
  } catch (error) {
    return { diagnostics: [withSource(failureDiagnostic("read_failed", filePath, error), source)] };
  }
}

/**
 * Parses one agent file's text. `name` and `description` are required; `tools` must be a comma list
 * or a list of names; `model` a string. An error drops the definition; unknown fields, a `model`
 * that is not a string and an empty body are warnings.
 *
 * Contract: synchronous, never throws.
 *
 * ```ts
 * parseAgentFile("---\nname: reviewer\ndescription: Reviews code\ntools: read, ls\n---\nYou review.", "/x/reviewer.md");
 * // { agent: { name: "reviewer", tools: ["read", "ls"], systemPrompt: "You review.", … }, diagnostics: [] }
 * ```
 */
export function parseAgentFile(text: string, filePath: string, source?: string): ParsedAgentFile {
  const diagnostics: ResourceDiagnostic[] = [];
  const report = (severity: "warning" | "error", code: ResourceDiagnostic["code"], message: string) => {
    diagnostics.push(withSource({ severity, code, path: filePath, message }, source));
  };
  let document: ReturnType<typeof splitFrontMatter>;
  try {
    document = splitFrontMatter(text);
  } catch (error) {
    report("error", "parse_failed", error instanceof FrontMatterError ? error.message : errorText(error));
    return { diagnostics };
  }
  if (document.format === "none") {
    report(
      "error",
      "parse_failed",
      'no front matter: an agent file starts with a "---" header giving name and description',
    );
    return { diagnostics };
  }
  const { data } = document;
  const unknown = Object.keys(data).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0)
    report("warning", "unknown_field", `unknown front matter field(s): ${unknown.join(", ")}; ignored`);

  const name = requiredText(data, "name", report);
  const description = requiredText(data, "description", report)?.replace(/\s+/g, " ");
  if (name !== undefined) {
    try {
      assertToolName(name);
    } catch {
      report(
        "error",
        "invalid_metadata",
        `"name" must be 1-64 letters, digits, "_" or "-" (it names a tool), got "${name}"`,
      );
    }
  }
  const tools = readToolNames(data.tools, report);
  if (diagnostics.some((diagnostic) => diagnostic.severity === "error")) return { diagnostics };

  const agent: AgentDefinition = {
    name: name!,
    description: description!,
    systemPrompt: document.body,
    filePath,
  };
  if (tools !== undefined) agent.tools = tools;
  const model = data.model;
  if (typeof model === "string" && model.trim() !== "" && model.trim() !== INHERIT_MODEL)
    agent.model = model.trim();
  else if (model !== undefined && model !== null && typeof model !== "string") {
    report(
      "warning",
      "invalid_metadata",
      `"model" must be a model id (a string); the parent's model is used`,
    );
  }
  if (document.body === "")
    report("warning", "invalid_metadata", "the body (the sub-agent's system prompt) is empty");
  if (source !== undefined) agent.source = source;
  return { agent, diagnostics };
}

type Report = (severity: "warning" | "error", code: ResourceDiagnostic["code"], message: string) => void;

function requiredText(data: Record<string, unknown>, key: string, report: Report): string | undefined {
  const value = data[key];
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (value === undefined || value === null || value === "")
    report("error", "invalid_metadata", `"${key}" is required`);
  else report("error", "invalid_metadata", `"${key}" must be a string, got ${JSON.stringify(value)}`);
  return undefined;
}

/** `tools: read, ls` or `tools: [read, ls]`; absent (or empty) means "inherit". */
function readToolNames(value: unknown, report: Report): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.split(/[\s,]+/).filter((item) => item !== "");
  if (Array.isArray(value) && value.every((item) => typeof item === "string"))
    return value.map((item) => item.trim());
  report(
    "error",
    "invalid_metadata",
    `"tools" must be a comma list or a list of tool names, got ${JSON.stringify(value)}`,
  );
  return undefined;
}

/** Options of `agentFileTools`. */
export interface AgentFileToolsOptions {
  /**
   * The tools a definition's `tools` may name (built-in tools, MCP tools…), read again when each
   * sub-agent starts, so tools that come and go are current. Agent tools made from the other
   * definitions may be named too (grandchildren).
   *
   * Contract: synchronous, must not throw; give the same tools on a restore as before it.
   */
  tools: () => readonly AgentTool[];
  /** The Model for a definition's `model` id (default `resolveModel`, the catalogue). */
  resolveModel?: (id: string) => Model;
}

/** What `agentFileTools` returns: one agent tool per usable definition, and the problems found. */
export interface AgentFileToolsResult {
  tools: AgentTool[];
  diagnostics: ResourceDiagnostic[];
}

/**
 * Turns agent definitions into agent tools (`defineAgentTool`, parameters `{ task: string }`, one per
 * definition, named from `name`): the child's system prompt is the file's body, its tools those its
 * `tools` names (matched exactly, else ignoring case, so Claude Code's `Read, Bash` find `read` and
 * `bash`; without `tools`, every tool of `options.tools()` that is not an agent tool), its model the
 * definition's `model` (else the parent's).
 *
 * Contract: synchronous, never throws. A definition whose name is already a tool's is left out with
 * an `error` diagnostic; a `tools` name that matches nothing is left out of that sub-agent's tools
 * with a `warning`.
 *
 * ```ts
 * import { Agent } from "agentchart";
 * import { createBuiltinTools } from "agentchart/node";
 * const builtinTools = createBuiltinTools();
 * const { agents } = await loadAgentFiles([{ path: ".agentchart/agents", source: "project" }]);
 * const { tools } = agentFileTools(agents, { tools: () => builtinTools });
 * const agent = new Agent({ model, streamFn, tools: [...builtinTools, ...tools] });
 * ```
 */
export function agentFileTools(
  definitions: readonly AgentDefinition[],
  options: AgentFileToolsOptions,
): AgentFileToolsResult {
  const diagnostics: ResourceDiagnostic[] = [];
  const toModel = options.resolveModel ?? resolveModel;
  const taken = new Set(options.tools().map((tool) => tool.name));
  const agentTools: AgentTool[] = [];
  const usable: AgentDefinition[] = [];
  for (const definition of definitions) {
    if (taken.has(definition.name)) {
      const message = `"name": a tool named "${definition.name}" already exists; this agent file is not loaded`;
      diagnostics.push(
        withSource(
          { severity: "error", code: "collision", path: definition.filePath, message },
          definition.source,
        ),
      );
      continue;
    }
    taken.add(definition.name);
    usable.push(definition);
  }
  const available = () => [...options.tools(), ...agentTools];
  const known = [...options.tools(), ...usable];
  for (const definition of usable) {
    for (const name of definition.tools ?? []) {
      if (findTool(known, name) !== undefined) continue;
      const message = `"tools": no tool is named "${name}"; the sub-agent runs without it`;
      diagnostics.push(
        withSource(
          { severity: "warning", code: "invalid_metadata", path: definition.filePath, message },
          definition.source,
        ),
      );
    }
    const model = definition.model === undefined ? undefined : toModel(definition.model);
    agentTools.push(
      defineAgentTool({
        name: definition.name,
        description: definition.description,
        agent: () => ({
          systemPrompt: definition.systemPrompt,
          tools: childTools(definition, available()),
          ...(model ? { model } : {}),
        }),
      }),
    );
  }
  return { tools: agentTools, diagnostics };
}

function childTools(definition: AgentDefinition, available: readonly AgentTool[]): AgentTool[] {
  if (definition.tools === undefined) return available.filter((tool) => tool.subAgent === undefined);
  const tools: AgentTool[] = [];
  for (const name of definition.tools) {
    const tool = findTool(available, name);
    if (tool !== undefined && !tools.includes(tool)) tools.push(tool);
  }
  return tools;
}

/** The tool named `name`, else the one tool whose name matches it ignoring case. */
function findTool<TNamed extends { name: string }>(
  tools: readonly TNamed[],
  name: string,
): TNamed | undefined {
  const exact = tools.find((tool) => tool.name === name);
  if (exact !== undefined) return exact;
  const folded = tools.filter((tool) => tool.name.toLowerCase() === name.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}
