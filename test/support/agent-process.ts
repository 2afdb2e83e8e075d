import { z } from "zod";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Model } from "../../src/types/model.js";

/** The model, script and tools shared by the persist/restore child process and the test restoring it. */
export const processModel: Model = {
  id: "scripted-1",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

/**
 * First reply: one call of each tool; then a text answer. A restored agent goes on with the replies
 * from `from` (the model the other process used already gave the earlier ones).
 */
export function processScript(from = 0) {
  return scriptedModel(
    [
      {
        toolCalls: [
          { name: "charge", arguments: { amount: 5 }, id: "pay" },
          { name: "lookup", arguments: { key: "k" }, id: "find" },
        ],
      },
      { text: "All done." },
    ].slice(from),
  );
}

/**
 * `charge` has a side effect and must never run twice (`replay: "never"`, needs approval in the
 * approval scenario); `lookup` is idempotent (`replay: "safe"`). Both report each execution through
 * `onRun(tool, idempotencyKey)` and wait for `gate` before finishing.
 */
export function processTools(options: {
  approval: boolean;
  onRun: (tool: string, key: string) => void;
  gate?: () => Promise<void>;
}) {
  return [
    defineTool({
      name: "charge",
      description: "Charges an amount",
      parameters: z.object({ amount: z.number() }),
      requiresApproval: options.approval,
      execute: async ({ amount }, ctx) => {
        options.onRun("charge", ctx.idempotencyKey);
        await options.gate?.();
        return { content: [{ type: "text", text: `charged ${amount}` }] };
      },
    }),
    defineTool({
      name: "lookup",
      description: "Looks a key up",
      parameters: z.object({ key: z.string() }),
      replay: "safe",
      execute: async ({ key }, ctx) => {
        options.onRun("lookup", ctx.idempotencyKey);
        await options.gate?.();
        return { content: [{ type: "text", text: `value of ${key}` }] };
      },
    }),
  ];
}
