import { describe, expect, it } from "vitest";
import { AgentPathLabels } from "../../src/cli/agent-path-labels.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";

const start = (toolCallId: string, toolName: string, agentPath: string[] = []): HarnessEvent => ({
  type: "tool_execution_start",
  toolCallId,
  toolName,
  args: {},
  agentPath,
});
const run = (type: "agent_start" | "agent_end", agentPath: string[] = []) =>
  ({ type, agentPath }) as unknown as HarnessEvent;

describe("AgentPathLabels", () => {
  it("names each agent after the agent tool of its call, numbering repeated calls within one run", () => {
    const labels = new AgentPathLabels();
    labels.observe(run("agent_start"));
    for (const [id, name] of [
      ["a", "support"],
      ["b", "research"],
      ["c", "research"],
    ])
      labels.observe(start(id!, name!));
    labels.observe(start("d", "billing", ["a"]));
    expect(labels.label(["a"])).toBe("support");
    expect(labels.label(["b"])).toBe("research");
    expect(labels.label(["c"])).toBe("research#2");
    expect(labels.trail(["a", "d"])).toBe("support › billing");
    // A path whose call was never seen is named by its id.
    expect(labels.label(["zz"])).toBe("zz");
  });

  it("starts counting again with the next run and forgets a call once it ends", () => {
    const labels = new AgentPathLabels();
    labels.observe(run("agent_start"));
    labels.observe(start("a", "research"));
    labels.observe(start("b", "research"));
    labels.observe({
      type: "tool_execution_end",
      toolCallId: "b",
      toolName: "research",
      result: { content: [] },
      isError: false,
    });
    expect(labels.label(["b"])).toBe("b");
    labels.observe(run("agent_end"));
    labels.observe(run("agent_start"));
    labels.observe(start("e", "research"));
    expect(labels.label(["e"])).toBe("research");
  });
});
