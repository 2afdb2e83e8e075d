/**
 * An `Agent` with a tool, and steering: while the tool runs, the user sends another message with
 * `agent.steer()`. By default it is delivered after the whole tool batch, before the next model call,
 * so the model sees it in the same run.
 *
 *   npx tsx examples/agent-tools-steering.ts
 */
import { z } from "zod";
import { Agent, defineTool, type Message } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

const search = defineTool({
  name: "search",
  description: "Searches the (fake) docs",
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }, { update }) => {
    update({ content: [{ type: "text", text: `searching for ${query}…` }] });
    return { content: [{ type: "text", text: `3 pages mention "${query}"` }] };
  },
});

const userTexts = (messages: Message[]) =>
  messages.flatMap((message) =>
    message.role === "user" && typeof message.content === "string" ? [message.content] : [],
  );

const agent = new Agent({
  model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
  systemPrompt: "You answer questions about the docs.",
  tools: [search],
  streamFn: scriptedModel([
    { text: "Let me search.", toolCalls: [{ name: "search", arguments: { query: "statecharts" } }] },
    (context) => ({
      text: `I found 3 pages. You also said: "${userTexts(context.messages).at(-1)}" — so I will keep it short.`,
    }),
  ]),
});

agent.subscribe((event) => {
  switch (event.type) {
    case "tool_execution_start":
      console.log(`tool ${event.toolName} started; the user steers: "only the summary, please"`);
      agent.steer("only the summary, please");
      break;
    case "tool_execution_update":
      console.log(`tool update: ${JSON.stringify(event.partialResult)}`);
      break;
    case "tool_execution_end":
      console.log(`tool ${event.toolName} ended (queued steering: ${agent.queued.steering.length})`);
      break;
    case "message_end": {
      const message = event.message as { role: string; content: unknown };
      if (message.role === "user") console.log(`user message delivered: ${JSON.stringify(message.content)}`);
      break;
    }
  }
});

await agent.prompt("What do the docs say about statecharts?");
const roles = agent.state.messages.map((message) => (message as { role: string }).role);
console.log(`transcript: ${roles.join(" → ")}`);
const last = agent.state.messages.at(-1) as { content: { type: string; text?: string }[] };
console.log(`answer: ${last.content.find((block) => block.type === "text")?.text}`);
