import type { Session } from "../storage/session.js";
import type { Model, ThinkingLevel } from "../types/model.js";
import type { AgentTool } from "../types/tool.js";
import { AgentHarnessError } from "./errors.js";
import type { HarnessStreamOptions } from "./hooks.js";
import type { HarnessResources } from "./resources/resource-set.js";
import {
  FixedSystemPromptCache,
  resolveSystemPrompt,
  type SystemPromptOption,
} from "./resources/system-prompt.js";

/** What `tools_update` reports. */
export interface ToolsChange {
  toolNames: string[];
  previousToolNames: string[];
  activeToolNames: string[];
  previousActiveToolNames: string[];
}

/**
 * The harness's tools, active tool names, resources, tool context, system prompt and stream options,
 * with the validation rules: tool names unique; active names unique and known
 * (`AgentHarnessError("invalid_argument")`). Getters return copies.
 */
export class HarnessSettings {
  #tools: AgentTool[];
  #active: string[];
  #resources: HarnessResources;
  #streamOptions: HarnessStreamOptions;
  readonly #toolContext: unknown;
  readonly #systemPrompt: SystemPromptOption | undefined;
  readonly #fixedPrompt: FixedSystemPromptCache;

  constructor(
    options: {
      tools?: AgentTool[];
      activeToolNames?: string[];
      resources?: Partial<HarnessResources>;
      toolContext?: unknown;
      systemPrompt?: SystemPromptOption;
      streamOptions?: HarnessStreamOptions;
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
    this.#systemPrompt = options.systemPrompt;
    this.#fixedPrompt = new FixedSystemPromptCache(
      typeof options.systemPrompt === "function" ? undefined : options.systemPrompt,
    );
    this.#streamOptions = { ...options.streamOptions };
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

  /** The stream options of every request (the object itself: replaced, never mutated, by `setStreamOptions`). */
  streamOptions(): Readonly<HarnessStreamOptions> {
    return this.#streamOptions;
  }
  setStreamOptions(streamOptions: HarnessStreamOptions): void {
    this.#streamOptions = { ...streamOptions };
  }

  /**
   * The system prompt of a request with `model` and `thinkingLevel` (see `resolveSystemPrompt`): a
   * prompt function sees the current tools and resources; a string prompt is synchronous, formatted
   * once per list of skills.
   */
  systemPrompt(session: Session, model: Model, thinkingLevel: ThinkingLevel): string | Promise<string> {
    const option = this.#systemPrompt;
    if (typeof option !== "function") return this.#fixedPrompt.get(this.#resources.skills);
    return resolveSystemPrompt(option, {
      session,
      model,
      thinkingLevel,
      activeTools: this.activeTools(),
      resources: this.resources(),
    });
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
