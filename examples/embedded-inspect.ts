/**
 * Embedding the agent loop in an app's own statechart, watched with `@statelyai/inspect`.
 *
 * The app machine invokes the agent machine as a long-lived child actor (id "agent"): its functions
 * (StreamFn, tools) come from `createAgentMachine(options)` in the app's `setup({ actors })`, its input
 * is data. The app sends it `PROMPT` and asks for its `agent_end` as an app event
 * (`parentEvents: ["agent_end"]` → `agent.agent_end`), which moves the app on with the answer.
 * `createInspector` with a custom adapter collects
 * Stately inspection events offline (no browser, no network): the app, the loop and one child per
 * tool call (its id is the tool call id) all show up.
 *
 *   npx tsx examples/embedded-inspect.ts
 */
import { createInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { assign, createActor, sendTo, setup, toPromise } from "xstate";
import { z } from "zod";
import { type AgentMessage, defineTool, type Model } from "../src/index.js";
import { type AgentParentEvent, createAgentMachine } from "../src/machines.js";
import { sanitizeForInspection } from "../src/node.js";
import { scriptedModel } from "../src/testing.js";

const model: Model = {
  id: "demo",
  api: "scripted",
  provider: "local",
  contextWindow: 8_000,
  maxTokens: 1_000,
};
const weather = defineTool({
  name: "weather",
  description: "Weather for a city (fake)",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ content: [{ type: "text", text: `${city}: sunny, 24°C` }] }),
});

/** The app: `asking` runs the agent as a child; `showing` holds the answer. */
const tripPlanner = setup({
  types: {
    input: {} as { question: string },
    context: {} as { question: string; answer: string },
    events: {} as AgentParentEvent,
    output: {} as string,
  },
  actors: {
    agent: createAgentMachine({
      streamFn: scriptedModel([
        { toolCalls: [{ id: "call_weather", name: "weather", arguments: { city: "Porto" } }] },
        { text: "Porto will be sunny: pack sunglasses." },
      ]),
      tools: [weather],
    }),
  },
}).createMachine({
  id: "tripPlanner",
  context: ({ input }) => ({ question: input.question, answer: "" }),
  initial: "asking",
  states: {
    asking: {
      invoke: {
        id: "agent",
        src: "agent",
        input: { model, systemPrompt: "Plan trips.", parentEvents: ["agent_end"] },
      },
      on: {
        "agent.agent_end": {
          target: "showing",
          actions: assign({ answer: ({ event }) => lastText(event.event.messages) }),
        },
      },
      entry: sendTo("agent", ({ context }) => ({
        type: "PROMPT" as const,
        messages: [{ role: "user" as const, content: context.question, timestamp: Date.now() }],
      })),
    },
    showing: { type: "final" },
  },
  output: ({ context }) => context.answer,
});

function lastText(messages: AgentMessage[]): string {
  const last = messages.at(-1) as { content?: { type: string; text?: string }[] } | undefined;
  return last?.content?.find((block) => block.type === "text")?.text ?? "";
}

// Collect Stately inspection events with a custom adapter. They arrive asynchronously, so we also
// note when the app's final snapshot has come through.
const collected: StatelyInspectionEvent[] = [];
let appDone!: () => void;
const appDoneInspected = new Promise<void>((resolve) => {
  appDone = resolve;
});
const inspector = createInspector(
  {
    send: (event) => {
      collected.push(event);
      const snapshot = (event as { snapshot?: { status?: string } }).snapshot;
      if (
        event.type === "@xstate.snapshot" &&
        event.sessionId === app.sessionId &&
        snapshot?.status === "done"
      ) {
        appDone();
      }
    },
  },
  {
    sanitizeContext: (context) =>
      sanitizeForInspection(context, { maxTotalSize: 4_000 }) as Record<string, unknown>,
    sanitizeEvent: (event) => ({ ...(sanitizeForInspection(event) as object), type: event.type }),
  },
);

const app = createActor(tripPlanner, {
  input: { question: "Weekend in Porto?" },
  inspect: inspector.inspect,
});
app.start();
const answer = await toPromise(app);
await appDoneInspected;
inspector.stop();

console.log(`answer: ${answer}`);
const actors = collected.filter((event) => event.type === "@xstate.actor").map((event) => event.sessionId);
console.log(`actors seen: ${actors.length}`);
const ids = new Set(
  collected
    .filter((event) => event.type === "@xstate.snapshot")
    .map((event) => (event as { sessionId: string }).sessionId),
);
console.log(`actors with snapshots: ${ids.size}`);
const eventTypes = new Set(
  collected
    .filter((event) => event.type === "@xstate.event")
    .map((event) => (event as { event: { type: string } }).event.type),
);
for (const type of ["PROMPT", "xstate.done.actor.call_weather"])
  console.log(`event ${type}: ${eventTypes.has(type) ? "seen" : "missing"}`);
const toolChild = collected.some(
  (event) => event.type === "@xstate.actor" && JSON.stringify(event).includes("call_weather"),
);
console.log(`tool-call child "call_weather": ${toolChild ? "seen" : "missing"}`);
