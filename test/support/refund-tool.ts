import { appendFileSync } from "node:fs";
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Model } from "../../src/types/model.js";

export const refundModel: Model = {
  id: "scripted-1",
  api: "scripted",
  provider: "scripted",
  contextWindow: 100_000,
  maxTokens: 4_096,
};

/** A `refund` tool that needs approval and appends one line per refund to `effects` (the side effect). */
export function refundTool(effects: string) {
  return defineTool({
    name: "refund",
    description: "Refunds an order",
    parameters: z.object({ order: z.string() }),
    requiresApproval: true,
    execute: async ({ order }, ctx) => {
      appendFileSync(effects, `${order} ${ctx.idempotencyKey}\n`);
      return { content: [{ type: "text", text: `refunded ${order}` }] };
    },
  });
}
