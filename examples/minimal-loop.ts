/**
 * The smallest agentchart program: `agentLoop` is a cold RxJS Observable. Subscribing runs the loop
 * statechart (stream a reply, run its tool calls, ask again); unsubscribing aborts it.
 *
 *   npx tsx examples/minimal-loop.ts
 */
import { lastValueFrom, tap } from "rxjs";
import { z } from "zod";
import { type AgentEvent, defineTool, type Model, type UserMessage } from "../src/index.js";
import { agentLoop } from "../src/machines.js";
import { scriptedModel } from "../src/testing.js";

const model: Model = {
  id: "demo",
  api: "scripted",
  provider: "local",
  contextWindow: 8_000,
  maxTokens: 1_000,
};

const clock = defineTool({
  name: "clock",
  description: "Tells the time in a fixed, fake world (so this example prints the same every run)",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ content: [{ type: "text", text: `It is 09:30 in ${city}.` }] }),
});

const prompt: UserMessage = { role: "user", content: "What time is it in Lisbon?", timestamp: Date.now() };
const streamFn = scriptedModel([
  { toolCalls: [{ name: "clock", arguments: { city: "Lisbon" } }] },
  (context) => {
    const result = context.messages.at(-1);
    const said =
      result?.role === "toolResult" && result.content[0]?.type === "text" ? result.content[0].text : "";
    return { text: `The clock tool says: ${said}` };
  },
]);

const events$ = agentLoop(
  [prompt],
  { systemPrompt: "Be brief.", messages: [], tools: [clock] },
  { model, streamFn },
);

const last = await lastValueFrom(
  events$.pipe(
    tap((event: AgentEvent) => {
      if (event.type === "message_update") return; // one line per delta would be noisy here
      const detail =
        event.type === "tool_execution_start"
          ? ` ${event.toolName}(${JSON.stringify(event.args)})`
          : event.type === "message_end"
            ? ` (${(event.message as { role: string }).role})`
            : "";
      console.log(`${event.type}${detail}`);
    }),
  ),
);

if (last.type === "agent_end") {
  const answer = last.messages.at(-1);
  if (answer?.role === "assistant" && answer.content[0]?.type === "text")
    console.log(`answer: ${answer.content[0].text}`);
}
