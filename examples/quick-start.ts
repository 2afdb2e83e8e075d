// The README's quick start, verbatim except for the imports (this repository's sources instead of
// the published package). Run: npx tsx examples/quick-start.ts
import { z } from "zod";
import { Agent, defineTool } from "../src/index.js";
import { scriptedModel } from "../src/testing.js"; // or: import { openai } from "agentchart/openai"

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
});

const agent = new Agent({
  model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8000, maxTokens: 1000 },
  streamFn: scriptedModel([
    { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
    { text: "2 + 3 = 5" },
  ]),
  tools: [add],
});
agent.events$.subscribe((e) => {
  if (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta") {
    process.stdout.write(e.assistantMessageEvent.delta);
  }
  if (e.type === "agent_end") process.stdout.write("\n");
});
await agent.prompt("What is 2 + 3?");
console.log(agent.state.messages.length); // user, assistant (tool call), toolResult, assistant
