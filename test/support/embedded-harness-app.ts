import { sendTo, setup } from "xstate";
import { createHarnessMachine } from "../../src/machines.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { Session } from "../../src/storage/session.js";
import { refundModel, refundTool } from "./refund-tool.js";

// A user's app that embeds the harness machine: the harness's functions come from
// `createHarnessMachine` in the app's `setup({ actors })`, the app asks it and approves its calls
// with the harness's commands. Shared by test/harness/harness-embedding.test.ts and the process it
// restores from (embedded-harness-child.ts).

/** The model's replies: a `refund` call that needs approval, then the answer. */
export const HARNESS_APP_REPLIES: ScriptedTurn[] = [
  { toolCalls: [{ id: "call-refund", name: "refund", arguments: { order: "A-17" } }] },
  { text: "Refunded." },
];

/** The app over `session`; `replies`: the model's replies from where this process starts. */
export function harnessAppMachine(options: { session: Session; replies: ScriptedTurn[]; effects: string }) {
  return setup({
    types: {
      events: {} as { type: "ASK"; text: string } | { type: "APPROVE"; toolCallId: string },
    },
    actors: {
      harness: createHarnessMachine({
        session: options.session,
        model: refundModel,
        tools: [refundTool(options.effects)],
        streamFn: scriptedModel(options.replies),
      }),
    },
  }).createMachine({
    id: "app",
    invoke: { id: "harness", src: "harness", input: { maxRetries: 0, overflowRecovery: false } },
    on: {
      ASK: {
        actions: sendTo("harness", ({ event }) => ({
          type: "PROMPT" as const,
          messages: [{ role: "user" as const, content: event.text, timestamp: 1 }],
        })),
      },
      APPROVE: {
        actions: sendTo("harness", ({ event }) => ({
          type: "APPROVE_TOOL" as const,
          toolCallId: event.toolCallId,
        })),
      },
    },
  });
}
