/**
 * GPT through the AI SDK's OpenAI provider (the Responses API), the same way as any other AI SDK
 * provider: Bedrock, Mistral, Groq, xAI… work alike with their `@ai-sdk/*` package.
 * Run: OPENAI_API_KEY=… npx tsx examples/ai-sdk-openai.ts (AGENTCHART_MODEL picks another model).
 */
import { openai } from "@ai-sdk/openai";
import { fromAiSdk } from "../src/ai-sdk.js";
import { Agent } from "../src/index.js";

if (!process.env.OPENAI_API_KEY) {
  console.log("Set OPENAI_API_KEY to run this example.");
  process.exit(0);
}

const { model, streamFn } = fromAiSdk(openai(process.env.AGENTCHART_MODEL ?? "gpt-5-mini"));
console.log(
  `${model.id}: ${model.contextWindow} tokens of context, $${model.cost?.input ?? "?"} per 1M input tokens`,
);
const agent = new Agent({ model, streamFn, thinkingLevel: "minimal" });
agent.events$.subscribe((event) => {
  if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
    process.stdout.write(event.assistantMessageEvent.delta);
  }
});
await agent.prompt("Name three statechart concepts, one line each.");
const last = agent.state.messages.at(-1);
console.log(`\n${last?.role === "assistant" ? (last.errorMessage ?? last.stopReason) : ""}`);
