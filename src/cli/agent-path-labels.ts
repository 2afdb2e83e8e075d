import type { HarnessEvent } from "../harness/hooks.js";

/** The `agentPath` of an event: the tool call ids from the root down; `[]` for the root's own. */
export function agentPathOf(event: HarnessEvent): readonly string[] {
  return ("agentPath" in event ? event.agentPath : undefined) ?? [];
}

/** One string per path, to key maps by agent. */
export function agentPathKey(path: readonly string[]): string {
  return path.join("/");
}

/**
 * Names the sub-agents of a run for a person. Fed every event, it learns from `tool_execution_start`
 * which tool each call ran, so the agent a descendant event's `agentPath` ends at is named after the
 * agent tool whose call runs it (`code-reviewer`). When one agent runs the same agent tool more than
 * once in a run (three parallel `research` calls), the second and later are `research#2`,
 * `research#3`; the count starts again with each run of that agent.
 *
 * ```ts
 * const labels = new AgentPathLabels();
 * harness.events$.subscribe((event) => labels.observe(event));
 * labels.trail(["call_1", "call_7"]); // "support › billing"
 * ```
 */
export class AgentPathLabels {
  /** The label of the agent each running call runs, by the call's path (its parent's path + its id). */
  readonly #labels = new Map<string, string>();
  /** Calls of each tool started by each agent in its current run, by `<agent path>\n<tool name>`. */
  readonly #counts = new Map<string, number>();

  /** Follows one event. Contract: synchronous, never throws. */
  observe(event: HarnessEvent): void {
    if (event.type === "agent_start" || event.type === "agent_end") {
      const prefix = `${agentPathKey(agentPathOf(event))}\n`;
      for (const key of this.#counts.keys()) if (key.startsWith(prefix)) this.#counts.delete(key);
    } else if (event.type === "tool_execution_start") {
      const parent = agentPathOf(event);
      const countKey = `${agentPathKey(parent)}\n${event.toolName}`;
      const count = (this.#counts.get(countKey) ?? 0) + 1;
      this.#counts.set(countKey, count);
      const label = count === 1 ? event.toolName : `${event.toolName}#${count}`;
      this.#labels.set(agentPathKey([...parent, event.toolCallId]), label);
    } else if (event.type === "tool_execution_end") {
      this.#labels.delete(agentPathKey([...agentPathOf(event), event.toolCallId]));
    }
  }

  /** The name of the agent at `path` (the last call's label; its id when its start was not seen). */
  label(path: readonly string[]): string {
    return this.#labels.get(agentPathKey(path)) ?? path.at(-1) ?? "";
  }

  /** The names of the agents from the root's child down to `path`, joined by " › ". */
  trail(path: readonly string[]): string {
    return path.map((_, index) => this.label(path.slice(0, index + 1))).join(" › ");
  }
}
