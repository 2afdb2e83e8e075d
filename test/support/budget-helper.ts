import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { echoTool } from "./loop-harness.js";

/**
 * The agent tool `helper` of the budget tree tests: its child echoes once (call `e1`), then answers
 * "child done". `restored`: the child's first reply is already in its persisted transcript.
 */
export function budgetHelper(restored: boolean) {
  const script = [
    { toolCalls: [{ id: "e1", name: "echo", arguments: { text: "from the child" } }] },
    { text: "child done" },
  ];
  return defineAgentTool({
    name: "helper",
    description: "Helps",
    agent: { streamFn: scriptedModel(restored ? script.slice(1) : script), tools: [echoTool()] },
  });
}
