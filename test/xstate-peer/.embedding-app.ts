// What an XState user writes, against the installed package (run.sh copies this file into a fresh
// app as embedding-app.ts, next to agentchart's tarball and one exact xstate version): an app machine
// invokes the agent machine, asks it, persists itself while the agent's tool call waits for approval,
// is restored from that JSON by a new actor of a new machine (as another process would), approves,
// and ends with the agent's answer. Exits 0 and prints one line only if all of that happened.
// (The leading dot keeps this file out of the repository's own type-check, which includes test/ and
// cannot resolve the package "agentchart" before it is built.)
import { type AgentMessage, defineTool } from "agentchart";
import { type AgentMachine, type AgentParentEvent, createAgentMachine } from "agentchart/machines";
import { scriptedModel } from "agentchart/testing";
import { type ActorRefFromLogic, assign, createActor, sendTo, setup, toPromise } from "xstate";
import { z } from "zod";

const model = { id: "scripted", api: "scripted", provider: "local", contextWindow: 8000, maxTokens: 1000 };
const CALL = { id: "pay-1", name: "charge", arguments: { amount: 5 } };
const ANSWER = "Charged 5.";

const runs: string[] = [];

type AppEvent = AgentParentEvent | { type: "ASK"; text: string } | { type: "APPROVE"; toolCallId: string };

/** The app; `replies`: what the model answers from where this actor starts (a new process's model). */
function appMachine(replies: Parameters<typeof scriptedModel>[0]) {
  const charge = defineTool({
    name: "charge",
    description: "Charges an amount",
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: async ({ amount }, { idempotencyKey }) => {
      runs.push(idempotencyKey);
      return { content: [{ type: "text", text: `charged ${amount}` }] };
    },
  });
  return setup({
    types: {
      context: {} as { answer: string },
      events: {} as AppEvent,
      children: {} as { agent: "agent" },
      output: {} as string,
    },
    actors: {
      agent: createAgentMachine({ streamFn: scriptedModel(replies), tools: [charge] }),
    },
  }).createMachine({
    id: "app",
    context: { answer: "" },
    initial: "working",
    states: {
      working: {
        invoke: { id: "agent", src: "agent", input: { model, parentEvents: ["agent_end"] } },
        on: {
          ASK: {
            actions: sendTo("agent", ({ event }) => ({
              type: "PROMPT" as const,
              messages: [{ role: "user" as const, content: event.text, timestamp: Date.now() }],
            })),
          },
          APPROVE: {
            actions: sendTo("agent", ({ event }) => ({
              type: "APPROVE_TOOL" as const,
              toolCallId: event.toolCallId,
            })),
          },
          "agent.agent_end": {
            target: "done",
            actions: assign({ answer: ({ event }) => lastText(event.event.messages) }),
          },
        },
      },
      done: { type: "final" },
    },
    output: ({ context }) => context.answer,
  });
}

/** The text of the last message if the assistant wrote it, else the message as JSON. */
function lastText(messages: AgentMessage[]): string {
  const last = messages.at(-1);
  const text = last?.role === "assistant" ? last.content.find((block) => block.type === "text") : undefined;
  return text?.type === "text" ? text.text : `(no answer: ${JSON.stringify(last)})`;
}

function fail(message: string): never {
  console.error(`embedding program FAILED: ${message}`);
  process.exit(1);
}

/**
 * Compile time only (never called): the agent's types are XState's. A declaration file that does not
 * fit this xstate's types makes them `any` under `skipLibCheck` (an app's usual setting); then these
 * expected errors do not happen and tsc fails on the unused `@ts-expect-error`s.
 */
export function typesAreReal(agent: ActorRefFromLogic<AgentMachine>) {
  // @ts-expect-error a machine is not a number
  const machine: AgentMachine = 42;
  // @ts-expect-error the agent takes no such event
  agent.send({ type: "NO_SUCH_EVENT" });
  agent.on("agent_end", (event) => {
    // @ts-expect-error agent_end has no tool call id
    event.toolCallId;
  });
  return machine;
}

// Keeps the process alive while an actor waits for something that never comes, and says so.
let stage = "starting the app";
const timer = setTimeout(() => fail(`timed out after 30 s ${stage}`), 30_000);

// First "process": ask, wait until the agent's call waits for approval, persist the app.
const first = createActor(appMachine([{ toolCalls: [CALL] }, { text: ANSWER }]));
first.subscribe({ error: (error) => fail(`the app failed ${stage}: ${error}`) });
first.start();
const agent = first.getSnapshot().children.agent;
if (!agent) fail("the app has no child actor 'agent'");
const waiting = new Promise<string>((resolve) => {
  agent.on("tool_approval_request", (event) => resolve(event.toolCallId));
});
stage = "waiting for the agent to ask approval of its call";
first.send({ type: "ASK", text: "charge me 5" });
const toolCallId = await waiting;
if (toolCallId !== CALL.id) fail(`approval asked for ${toolCallId}, expected ${CALL.id}`);
const saved = JSON.stringify(first.getPersistedSnapshot());
first.stop();
if (runs.length > 0) fail(`the tool ran before approval: ${JSON.stringify(runs)}`);

// Second "process": a new machine (its model continues after the tool call), restored from the JSON.
const restored = createActor(appMachine([{ text: ANSWER }]), { snapshot: JSON.parse(saved) });
restored.start();
if (!restored.getSnapshot().matches("working"))
  fail(`restored app is in ${JSON.stringify(restored.getSnapshot().value)}`);
stage = "waiting for the restored app to finish after the approval";
restored.send({ type: "APPROVE", toolCallId });
const output = await toPromise(restored).catch((error: unknown) => fail(`the restored app failed: ${error}`));
clearTimeout(timer);

if (output !== ANSWER) fail(`answer ${JSON.stringify(output)}, expected ${JSON.stringify(ANSWER)}`);
if (runs.length !== 1) fail(`the tool ran ${runs.length} times, expected once: ${JSON.stringify(runs)}`);
console.log(
  `ok: persisted ${saved.length} bytes while awaiting approval of ${toolCallId}, restored, tool ran once (${runs[0]}), answer ${JSON.stringify(output)}`,
);
