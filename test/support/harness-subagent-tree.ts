import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineAgentTool } from "../../src/tools/define-agent-tool.js";
import { refundTool } from "./refund-tool.js";

/**
 * A harness's three-level tree: root → `support` (agent tool, call `s1`; no StreamFn of its own, so it
 * uses the harness's) → `billing` (agent tool, call `b1`; its own scripted model) → `refund` (approval,
 * call `r1`, one line in `effects` per refund). `harnessScript` serves the root's and support's requests
 * in the order they come; `restored` drops the replies already in the persisted transcripts;
 * `supportReplay` is the `support` tool's `replay`; `billingReplies` replace billing's script.
 */
export function harnessSupportTree(
  effects: string,
  restored = false,
  supportReplay?: "safe" | "never",
  billingReplies?: ScriptedTurn[],
) {
  const billingScript: ScriptedTurn[] = [
    { toolCalls: [{ id: "r1", name: "refund", arguments: { order: "A-1" } }] },
    { text: "billing: refunded" },
  ];
  const billingModel = scriptedModel(billingReplies ?? (restored ? billingScript.slice(1) : billingScript));
  const billing = defineAgentTool({
    name: "billing",
    description: "Handles billing",
    agent: { systemPrompt: "You do billing.", streamFn: billingModel, tools: [refundTool(effects)] },
  });
  const support = defineAgentTool({
    name: "support",
    description: "Handles support",
    agent: { systemPrompt: "You do support.", tools: [billing] },
    ...(supportReplay ? { replay: supportReplay } : {}),
  });
  const script: ScriptedTurn[] = [
    { toolCalls: [{ id: "s1", name: "support", arguments: { task: "customer wants a refund" } }] },
    { toolCalls: [{ id: "b1", name: "billing", arguments: { task: "refund A-1" } }] },
    { text: "support: done" },
    { text: "root: all done" },
  ];
  const harnessModel = scriptedModel(restored ? script.slice(2) : script);
  return { tools: [support], harnessModel, billingModel, billingScript };
}
