import { assign, sendTo, setup } from "xstate";
import { z } from "zod";
import { type AgentParentEvent, createAgentMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AgentMessage } from "../../src/types/messages.js";
import { testModel } from "./loop-harness.js";

// A user's app that embeds the agent machine the way docs/concepts.md shows: the agent's functions
// come from `createAgentMachine` in the app's `setup({ actors })`, its input is data, and the app
// receives the agent's approval requests and its end as its own events (`parentEvents`). Shared by
// test/machines/embedding.test.ts and the process it restores from (embedded-app-child.ts).

/** The model's replies: a `charge` call that needs approval, then the answer. */
export const APP_REPLIES = [
  { toolCalls: [{ id: "pay", name: "charge", arguments: { amount: 5 } }] },
  { text: "Charged." },
];

/** A `charge` tool that needs approval and reports each execution through `onRun`. */
export function chargeTool(onRun: (key: string) => void) {
  return defineTool({
    name: "charge",
    description: "Charges an amount",
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: async ({ amount }, { idempotencyKey }) => {
      onRun(idempotencyKey);
      return { content: [{ type: "text", text: `charged ${amount}` }] };
    },
  });
}

type AppEvent = AgentParentEvent | { type: "ASK"; text: string } | { type: "APPROVE"; toolCallId: string };

/**
 * The app: `working` invokes the agent (id "agent", a static input object) and asks it; it records
 * waiting calls; `APPROVE` approves one; the agent's end makes it `done` with the answer.
 * `replies`: the model's replies from where this process starts.
 */
export function appMachine(options: { replies: typeof APP_REPLIES; onRun: (key: string) => void }) {
  return setup({
    types: {
      context: {} as { waiting: string[]; answer: string },
      events: {} as AppEvent,
      output: {} as string,
    },
    actors: {
      agent: createAgentMachine({
        streamFn: scriptedModel(options.replies),
        tools: [chargeTool(options.onRun)],
      }),
    },
  }).createMachine({
    id: "app",
    context: { waiting: [], answer: "" },
    initial: "working",
    states: {
      working: {
        invoke: {
          id: "agent",
          src: "agent",
          input: {
            agentId: "embedded",
            model: testModel,
            parentEvents: ["tool_approval_request", "agent_end"],
          },
        },
        on: {
          ASK: {
            actions: sendTo("agent", ({ event }) => ({
              type: "PROMPT" as const,
              messages: [{ role: "user" as const, content: event.text, timestamp: 1 }],
            })),
          },
          "agent.tool_approval_request": {
            actions: assign({
              waiting: ({ context, event }) => [...context.waiting, event.event.toolCallId],
            }),
          },
          APPROVE: {
            actions: [
              sendTo("agent", ({ event }) => ({
                type: "APPROVE_TOOL" as const,
                toolCallId: event.toolCallId,
              })),
              assign({
                waiting: ({ context, event }) => context.waiting.filter((id) => id !== event.toolCallId),
              }),
            ],
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

function lastText(messages: AgentMessage[]): string {
  const last = messages.at(-1) as { content?: { type: string; text?: string }[] } | undefined;
  return last?.content?.find((block) => block.type === "text")?.text ?? "";
}
