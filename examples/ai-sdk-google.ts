/**
 * Gemini through the AI SDK's Google provider: thinking (Gemini's thought signatures are kept and
 * sent back across tool turns) and a tool.
 * Run: GOOGLE_GENERATIVE_AI_API_KEY=… npx tsx examples/ai-sdk-google.ts (AGENTCHART_MODEL picks another model).
 */
import { google } from "@ai-sdk/google";
import { z } from "zod";
import { fromAiSdk } from "../src/ai-sdk.js";
import { Agent, defineTool } from "../src/index.js";

if (!process.env.GOOGLE_GENERATIVE_AI_API_KEY) {
  console.log("Set GOOGLE_GENERATIVE_AI_API_KEY to run this example.");
  process.exit(0);
}

const convert = defineTool({
  name: "convert_currency",
  description: "Converts an amount between two currencies at today's rate",
  parameters: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
  execute: async ({ amount, from, to }) => ({
    content: [{ type: "text", text: `${amount} ${from} = ${(amount * 1.08).toFixed(2)} ${to}` }],
  }),
});

const agent = new Agent({
  ...fromAiSdk(google(process.env.AGENTCHART_MODEL ?? "gemini-2.5-flash")),
  tools: [convert],
  thinkingLevel: "low",
});
agent.events$.subscribe((event) => {
  if (event.type !== "message_update") return;
  const update = event.assistantMessageEvent;
  if (update.type === "thinking_delta") process.stdout.write(`\x1b[2m${update.delta}\x1b[0m`);
  if (update.type === "text_delta") process.stdout.write(update.delta);
});
await agent.prompt("How much is 120 EUR in USD?");
const last = agent.state.messages.at(-1);
console.log(`\n${last?.role === "assistant" ? (last.errorMessage ?? last.stopReason) : ""}`);
