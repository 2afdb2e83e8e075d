import type { AgentTool } from "../types/tool.js";
import { AgentHarnessError } from "./harness-errors.js";
import type { HarnessResources } from "./harness-hooks.js";

/** What `tools_update` reports. */
export interface ToolsChange {
  toolNames: string[];
  previousToolNames: string[];
  activeToolNames: string[];
  previousActiveToolNames: string[];
}

/**
 * The harness's tools, active tool names, resources and tool context, with the validation rules:
 * tool names unique; active names unique and known (`AgentHarnessError("invalid_argument")`).
 * Getters return copies.
 */
export class HarnessSettings {
  #tools: AgentTool[];
  #active: string[];
  #resources: HarnessResources;
  readonly #toolContext: unknown;

  constructor(
    options: {
      tools?: AgentTool[];
      activeToolNames?: string[];
      resources?: Partial<HarnessResources>;
      toolContext?: unknown;
    },
    sessionActiveToolNames: string[] | null,
  ) {
    this.#tools = checkTools(options.tools ?? []);
    const names = this.#tools.map((tool) => tool.name);
    if (options.activeToolNames) this.#active = checkActive(options.activeToolNames, names);
    else if (sessionActiveToolNames)
      this.#active = sessionActiveToolNames.filter((name) => names.includes(name));
    else this.#active = names;
    this.#resources = { skills: [], promptTemplates: [] };
    this.setResources(options.resources ?? {});
    this.#toolContext = options.toolContext;
  }

  tools(): AgentTool[] {
    return [...this.#tools];
  }
  activeToolNames(): string[] {
    return [...this.#active];
  }
  /** The active tools, in the order of `tools`. */
  activeTools(): AgentTool[] {
    return this.#tools.filter((tool) => this.#active.includes(tool.name));
  }
  /** The skills list itself (not a copy; replaced, never mutated, by `setResources`). */
  skills(): readonly HarnessResources["skills"][number][] {
    return this.#resources.skills;
  }
  resources(): HarnessResources {
    return { skills: [...this.#resources.skills], promptTemplates: [...this.#resources.promptTemplates] };
  }

  replaceTools(tools: AgentTool[], activeToolNames?: string[]): ToolsChange {
    const checked = checkTools(tools);
    const names = checked.map((tool) => tool.name);
    const active = checkActive(activeToolNames ?? names, names);
    return this.#commit(checked, active);
  }

  replaceActive(activeToolNames: string[]): ToolsChange {
    const active = checkActive(
      activeToolNames,
      this.#tools.map((tool) => tool.name),
    );
    return this.#commit(this.#tools, active);
  }

  setResources(resources: Partial<HarnessResources>): void {
    this.#resources = {
      skills: [...(resources.skills ?? this.#resources.skills)],
      promptTemplates: [...(resources.promptTemplates ?? this.#resources.promptTemplates)],
    };
  }

  /** The tool context for a run: the value, or what the function returns (a promise is awaited by the caller). */
  resolveToolContext(): unknown {
    const option = this.#toolContext;
    return typeof option === "function" ? (option as () => unknown)() : option;
  }

  #commit(tools: AgentTool[], active: string[]): ToolsChange {
    const change: ToolsChange = {
      toolNames: tools.map((tool) => tool.name),
      previousToolNames: this.#tools.map((tool) => tool.name),
      activeToolNames: [...active],
      previousActiveToolNames: [...this.#active],
    };
    this.#tools = [...tools];
    this.#active = [...active];
    return change;
  }
}

function duplicates(names: string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

function checkTools(tools: AgentTool[]): AgentTool[] {
  const repeated = duplicates(tools.map((tool) => tool.name));
  if (repeated.length > 0) {
    throw new AgentHarnessError("invalid_argument", `Duplicate tool name(s): ${repeated.join(", ")}`);
  }
  return [...tools];
}

function checkActive(active: string[], known: string[]): string[] {
  const repeated = duplicates(active);
  if (repeated.length > 0) {
    throw new AgentHarnessError("invalid_argument", `Duplicate active tool name(s): ${repeated.join(", ")}`);
  }
  const unknown = active.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new AgentHarnessError("invalid_argument", `Unknown tool(s): ${unknown.join(", ")}`);
  return [...active];
}
