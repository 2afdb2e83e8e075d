/**
 * Claude through the AI SDK's Anthropic provider: a tool, extended thinking, prompt caching.
 * Run: ANTHROPIC_API_KEY=… npx tsx examples/ai-sdk-anthropic.ts (ANTHROPIC_BASE_URL points it at a
 * proxy; AGENTCHART_MODEL picks another Claude model).
 */
import { anthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import { fromAiSdk } from "../src/ai-sdk.js";
import { Agent, defineTool } from "../src/index.js";

if (!process.env.ANTHROPIC_API_KEY) {
  console.log("Set ANTHROPIC_API_KEY to run this example.");
  process.exit(0);
}

const getWeather = defineTool({
  name: "get_weather",
  description: "The current weather of a city",
  parameters: z.object({ location: z.string() }),
  execute: async ({ location }) => ({ content: [{ type: "text", text: `${location}: 18°C, light rain` }] }),
});

// The catalogue knows Claude's window, output cap and prices (cache reads and writes included);
// cache points go on the system prompt, the tools and the last message by default.
const agent = new Agent({
  ...fromAiSdk(anthropic(process.env.AGENTCHART_MODEL ?? "claude-sonnet-4-5")),
  systemPrompt: "You answer weather questions in one sentence.",
  tools: [getWeather],
  thinkingLevel: process.env.AGENTCHART_THINKING === "off" ? "off" : "low",
});
agent.events$.subscribe((event) => {
  if (event.type !== "message_update") return;
  const update = event.assistantMessageEvent;
  if (update.type === "text_delta") process.stdout.write(update.delta);
  if (update.type === "toolcall_end")
    console.log(`⚙ ${update.toolCall.name}(${JSON.stringify(update.toolCall.arguments)})`);
});
await agent.prompt("What is the weather in Paris?");
const last = agent.state.messages.at(-1);
if (last?.role === "assistant") {
  const { input, cacheRead, cacheWrite, output, cost } = last.usage;
  console.log(
    `\n${last.stopReason}: ${input} in, ${cacheRead} cache read, ${cacheWrite} cache write, ${output} out ($${cost.total.toFixed(5)})`,
  );
  if (last.errorMessage) console.log(last.errorMessage);
}
