import { filter, type Observable } from "rxjs";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import type { AgentTool } from "../types/tool.js";
import type { ToolSource } from "../types/tool-source.js";

/** What {@link followToolSources} needs from the harness: its public tool API and its phase. */
export interface ToolSourceTarget {
  readonly tools: AgentTool[];
  readonly activeToolNames: string[];
  readonly phase: HarnessPhase;
  readonly phase$: Observable<HarnessPhase>;
  readonly session: { readonly status: string };
  setTools(tools: AgentTool[], activeToolNames?: string[]): void;
}

/** The tools a harness starts with: its own, then every source's, in order. */
export function initialTools(own: AgentTool[] = [], sources: readonly ToolSource[] = []): AgentTool[] {
  return [...own, ...sources.flatMap((source) => source.tools)];
}

/**
 * Keeps `target`'s tools in step with `sources` (e.g. MCP servers whose tool lists change): after a
 * change, the tools become the target's own tools (those no source gave) followed by every source's
 * current tools. A change is applied at once when the target is idle, else when it is idle again, so
 * a run never sees its tools change. Tools that were active stay active, new tools become active,
 * removed ones go. A failing `setTools` (e.g. a name clash with an own tool) goes to `onError`.
 * Following stops once the target's session is closed (a harness that was replaced, as after a fork).
 * Returns a function that stops following.
 */
export function followToolSources(
  target: ToolSourceTarget,
  sources: readonly ToolSource[],
  onError: (error: unknown, eventType: string) => void,
): () => void {
  if (sources.length === 0) return () => {};
  let sourceTools = new Set(initialTools([], sources));
  let pending = false;
  const apply = () => {
    if (!pending) return;
    pending = false;
    if (target.session.status === "closed") {
      stop();
      return;
    }
    const previous = new Set(target.tools.map((tool) => tool.name));
    const active = new Set(target.activeToolNames);
    const own = target.tools.filter((tool) => !sourceTools.has(tool));
    const fromSources = initialTools([], sources);
    const tools = [...own, ...fromSources];
    const activeNames = tools
      .map((tool) => tool.name)
      .filter((name) => active.has(name) || !previous.has(name));
    try {
      target.setTools(tools, activeNames);
      sourceTools = new Set(fromSources);
    } catch (error) {
      onError(error, "tools_update");
    }
  };
  const stops = sources.map((source) =>
    source.onToolsChanged(() => {
      pending = true;
      if (target.phase === "idle") apply();
    }),
  );
  const idle = target.phase$.pipe(filter((phase) => phase === "idle")).subscribe(apply);
  function stop(): void {
    for (const stopListening of stops) stopListening();
    idle.unsubscribe();
  }
  return stop;
}
