/**
 * Model-based testing of an app that embeds the agent machine, with `xstate/graph`.
 *
 * The app (`assistantApp`) is a plain XState machine. It invokes the agent machine as a child actor
 * (`createAgentMachine(...)` in its `setup({ actors })`, id "agent", alive as long as the app) and
 * hears the agent's approval requests and run ends as its own events (`parentEvents` →
 * `agent.tool_approval_request`, `agent.agent_end`):
 *
 *   ready —SUBMIT→ working ──(agent_end)──────────→ answered
 *                  working ──(agent_end, tripped)─→ withheld   (an output guardrail replaced the reply)
 *                  working ──(approval request)───→ approving —APPROVE / DENY→ working
 *        working, approving —CANCEL→ cancelling ──(agent_end)→ cancelled
 *   answered, withheld, cancelled —SUBMIT→ working, —CLEAR→ ready
 *
 * A small *test model* (`expectedBehaviour`) describes the same behaviour abstractly: states and
 * events only, including what the model does (REPLY, REPLY_PASSWORD, CALL_CHARGE).
 * `createTestModel(...).getShortestPaths()` and `getSimplePaths()` enumerate the paths through it;
 * each path is replayed against a fresh app actor with a real agent machine, and every state it
 * reaches is checked against the model. No timers: the StreamFn waits at a gate until the test says
 * what the model replies, and the test waits on facts — "the request reached the model" (a promise
 * the gate resolves) or "the app left `working`" (`waitFor` on the app's snapshots).
 *
 *   npx tsx examples/model-based-test.ts
 */
import { type Actor, assign, createActor, enqueueActions, sendTo, setup, waitFor } from "xstate";
import { createTestModel } from "xstate/graph";
import { z } from "zod";
import {
  type AgentMessage,
  type AgentParentEvent,
  type AssistantMessageEvent,
  createAgentMachine,
  defineTool,
  type Guardrail,
  type Model,
  type RunStopReason,
  type StreamFn,
} from "../src/index.js";
import { type ScriptedReply, scriptedModel } from "../src/testing.js";

// ── The app under test ────────────────────────────────────────────────────────────────────────────

const model: Model = {
  id: "gated",
  api: "scripted",
  provider: "local",
  contextWindow: 8_000,
  maxTokens: 1_000,
};

/** A tool with a side effect: it runs only after the user approved the call. */
function chargeTool(onCharge: (amount: number) => void) {
  return defineTool({
    name: "charge",
    description: "Charges the user's card",
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: async ({ amount }) => {
      onCharge(amount);
      return { content: [{ type: "text", text: `charged ${amount}` }] };
    },
  });
}

/** An output guardrail: a reply naming the password never reaches the app, nor the transcript. */
const noPasswords: Guardrail = {
  name: "no-passwords",
  check: ({ text }) => ({
    tripwire: /password/i.test(text),
    reason: "mentions a password",
    replacement: "Sorry, I can't share that.",
  }),
};

/** Why a denied call did not run (the agent tells the model, in the call's error result). */
const DENIAL = "The user declined the charge.";

type AppEvent =
  | AgentParentEvent
  | { type: "SUBMIT"; text: string }
  | { type: "APPROVE" }
  | { type: "DENY" }
  | { type: "CANCEL" }
  | { type: "CLEAR" };

interface AppContext {
  answer: string | undefined;
  /** The tool call waiting for the user's decision (in `approving`). */
  pendingCall: string | undefined;
  /** How the agent's last run ended. */
  stopReason: RunStopReason | undefined;
}

/** The app, given the agent's StreamFn (the real provider in production, a gated one here). */
function assistantApp(options: { streamFn: StreamFn; onCharge: (amount: number) => void }) {
  return setup({
    types: {
      context: {} as AppContext,
      events: {} as AppEvent,
      children: {} as { agent: "agent" },
    },
    actors: {
      agent: createAgentMachine({
        streamFn: options.streamFn,
        tools: [chargeTool(options.onCharge)],
        guardrails: { output: [noPasswords] },
      }),
    },
    actions: {
      /** A new question: the app forgets the last answer and prompts the agent. */
      ask: enqueueActions(({ enqueue }, params: { text: string }) => {
        enqueue.assign({ answer: undefined, stopReason: undefined });
        enqueue.sendTo("agent", {
          type: "PROMPT",
          messages: [{ role: "user", content: params.text, timestamp: Date.now() }],
        });
      }),
      abortAgent: sendTo("agent", { type: "ABORT" as const }),
      keepOutcome: assign((_, params: { messages: AgentMessage[]; stopReason: RunStopReason }) => ({
        answer: lastText(params.messages),
        stopReason: params.stopReason,
      })),
      clearAnswer: assign({ answer: undefined, stopReason: undefined }),
    },
  }).createMachine({
    id: "assistantApp",
    context: { answer: undefined, pendingCall: undefined, stopReason: undefined },
    // The agent lives as long as the app: one conversation across all questions.
    invoke: {
      id: "agent",
      src: "agent",
      input: {
        model,
        systemPrompt: "You help with payments.",
        parentEvents: ["tool_approval_request", "agent_end"],
      },
    },
    initial: "ready",
    states: {
      ready: {
        on: {
          SUBMIT: {
            target: "working",
            actions: { type: "ask", params: ({ event }) => ({ text: event.text }) },
          },
        },
      },
      working: {
        on: {
          "agent.tool_approval_request": {
            target: "approving",
            actions: assign({ pendingCall: ({ event }) => event.event.toolCallId }),
          },
          "agent.agent_end": [
            {
              guard: ({ event }) => event.event.stopReason === "guardrail",
              target: "withheld",
              actions: { type: "keepOutcome", params: ({ event }) => event.event },
            },
            { target: "answered", actions: { type: "keepOutcome", params: ({ event }) => event.event } },
          ],
          CANCEL: { target: "cancelling", actions: "abortAgent" },
        },
      },
      approving: {
        on: {
          APPROVE: {
            target: "working",
            actions: [
              sendTo("agent", ({ context }) => ({
                type: "APPROVE_TOOL" as const,
                toolCallId: context.pendingCall ?? "",
              })),
              assign({ pendingCall: undefined }),
            ],
          },
          DENY: {
            target: "working",
            actions: [
              sendTo("agent", ({ context }) => ({
                type: "DENY_TOOL" as const,
                toolCallId: context.pendingCall ?? "",
                reason: DENIAL,
              })),
              assign({ pendingCall: undefined }),
            ],
          },
          CANCEL: { target: "cancelling", actions: ["abortAgent", assign({ pendingCall: undefined })] },
        },
      },
      // Aborting takes the agent a moment; the app waits for the run's end before taking questions.
      cancelling: {
        on: {
          "agent.agent_end": {
            target: "cancelled",
            actions: { type: "keepOutcome", params: ({ event }) => event.event },
          },
        },
      },
      answered: {
        on: {
          SUBMIT: {
            target: "working",
            actions: { type: "ask", params: ({ event }) => ({ text: event.text }) },
          },
          CLEAR: { target: "ready", actions: "clearAnswer" },
        },
      },
      withheld: {
        on: {
          SUBMIT: {
            target: "working",
            actions: { type: "ask", params: ({ event }) => ({ text: event.text }) },
          },
          CLEAR: { target: "ready", actions: "clearAnswer" },
        },
      },
      cancelled: {
        on: {
          SUBMIT: {
            target: "working",
            actions: { type: "ask", params: ({ event }) => ({ text: event.text }) },
          },
          CLEAR: { target: "ready", actions: "clearAnswer" },
        },
      },
    },
  });
}

function lastText(messages: AgentMessage[]): string | undefined {
  const last = messages.at(-1) as { content?: { type: string; text?: string }[] } | undefined;
  return last?.content?.find((block) => block.type === "text")?.text;
}

// ── A model whose replies the test chooses and releases ───────────────────────────────────────────

type Reply = "answer" | "password" | "charge";

/**
 * A StreamFn that waits (abortably) at a gate until the test calls `reply(kind)`: `answer` echoes the
 * last question, `password` leaks one, `charge` calls the `charge` tool. `nextRequest()` resolves
 * when the next request has reached the gate.
 */
function gatedModel() {
  let open: ((reply: Reply | undefined) => void) | undefined;
  let arrived: (() => void) | undefined;
  let calls = 0;
  const streamFn: StreamFn = (llm, context, options) =>
    (async function* (): AsyncGenerator<AssistantMessageEvent> {
      const reply = await new Promise<Reply | undefined>((resolve) => {
        open = resolve;
        options.signal?.addEventListener("abort", () => resolve(undefined), { once: true });
        arrived?.();
      });
      open = undefined;
      const question = [...context.messages].reverse().find((message) => message.role === "user");
      const text = typeof question?.content === "string" ? question.content : "?";
      const turn: ScriptedReply =
        reply === "charge"
          ? { toolCalls: [{ id: `charge_${++calls}`, name: "charge", arguments: { amount: 5 } }] }
          : reply === "password"
            ? { text: `The admin password is hunter2 (${text}).` }
            : { text: `echo: ${text}` }; // also what an aborted request streams until it stops
      yield* scriptedModel([turn])(llm, context, options) as AsyncIterable<AssistantMessageEvent>;
    })();
  return {
    streamFn,
    /** Whether a request waits at the gate. */
    waiting: () => open !== undefined,
    reply: (kind: Reply) => open?.(kind),
    nextRequest: () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      }),
  };
}

// ── The test model: the behaviour we expect, without implementation details ───────────────────────

const expectedBehaviour = setup({
  types: {
    events: {} as
      | { type: "SUBMIT" }
      | { type: "REPLY" }
      | { type: "REPLY_PASSWORD" }
      | { type: "CALL_CHARGE" }
      | { type: "APPROVE" }
      | { type: "DENY" }
      | { type: "CANCEL" }
      | { type: "CLEAR" },
  },
}).createMachine({
  id: "expected",
  initial: "ready",
  states: {
    ready: { on: { SUBMIT: "working" } },
    working: {
      on: { REPLY: "answered", REPLY_PASSWORD: "withheld", CALL_CHARGE: "approving", CANCEL: "cancelled" },
    },
    approving: { on: { APPROVE: "working", DENY: "working", CANCEL: "cancelled" } },
    answered: { on: { SUBMIT: "working", CLEAR: "ready" } },
    withheld: { on: { SUBMIT: "working", CLEAR: "ready" } },
    cancelled: { on: { SUBMIT: "working", CLEAR: "ready" } },
  },
});

// ── Replaying every path against the real app ─────────────────────────────────────────────────────

interface Harness {
  app: Actor<ReturnType<typeof assistantApp>>;
  gate: ReturnType<typeof gatedModel>;
  /** The amounts the `charge` tool charged. */
  charges: number[];
  /** What the test did so far, to check the app against. */
  submitted: number;
  approved: number;
  denied: number;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

const agentOf = (harness: Harness) => {
  const agent = harness.app.getSnapshot().children.agent;
  if (!agent) throw new Error("the app should run its agent");
  return agent.getSnapshot();
};

/**
 * Checks that hold in every state: the tool ran once per approval, the model was told of every
 * denial, and no withheld reply reached the transcript.
 */
function checkInvariants(harness: Harness): void {
  const { charges, approved, denied } = harness;
  check(charges.length === approved, `charged ${charges.length}×, approved ${approved}×`);
  const transcript = agentOf(harness).context.messages.map((message) => JSON.stringify(message));
  const denials = transcript.filter((message) => message.includes(DENIAL)).length;
  check(denials === denied, `${denials} denials in the transcript, denied ${denied}×`);
  check(
    !transcript.some((message) => message.includes("hunter2")),
    "a withheld reply reached the transcript",
  );
}

/** The app is at rest in `state`, its agent idle, the run ended with `stopReason`. */
function checkSettled(
  harness: Harness,
  state: "answered" | "withheld" | "cancelled",
  stopReason: RunStopReason,
): void {
  const { context } = harness.app.getSnapshot();
  check(harness.app.getSnapshot().matches(state), `app should be ${state}`);
  check(agentOf(harness).value === "idle", "the agent should be idle");
  check(
    context.stopReason === stopReason,
    `the run should end with ${stopReason}, not ${context.stopReason}`,
  );
  checkInvariants(harness);
}

/** Releases the model's reply and waits until the app has left `working`. */
async function modelReplies(harness: Harness, kind: Reply): Promise<void> {
  harness.gate.reply(kind);
  await waitFor(harness.app, (snapshot) => !snapshot.matches("working"));
}

/** Sends `event` and waits until the agent's next request waits at the gate. */
async function sendAndAwaitRequest(harness: Harness, event: AppEvent): Promise<void> {
  const requested = harness.gate.nextRequest();
  harness.app.send(event);
  await requested;
}

const testModel = createTestModel(expectedBehaviour);
// Shortest paths reach every state; simple paths take every route that visits no state twice. The
// two lists overlap: each path is replayed once.
const paths = [
  ...new Map(
    [...testModel.getShortestPaths(), ...testModel.getSimplePaths()].map((path) => [path.description, path]),
  ).values(),
];
let passed = 0;
for (const path of paths) {
  const gate = gatedModel();
  const charges: number[] = [];
  const app = createActor(
    assistantApp({ streamFn: gate.streamFn, onCharge: (amount) => charges.push(amount) }),
  ).start();
  const harness: Harness = { app, gate, charges, submitted: 0, approved: 0, denied: 0 };
  try {
    await path.test({
      events: {
        SUBMIT: async () => {
          harness.submitted++;
          await sendAndAwaitRequest(harness, { type: "SUBMIT", text: `question ${harness.submitted}` });
        },
        REPLY: () => modelReplies(harness, "answer"),
        REPLY_PASSWORD: () => modelReplies(harness, "password"),
        CALL_CHARGE: () => modelReplies(harness, "charge"),
        APPROVE: async () => {
          harness.approved++;
          await sendAndAwaitRequest(harness, { type: "APPROVE" }); // the tool ran; the model is asked again
        },
        DENY: async () => {
          harness.denied++;
          await sendAndAwaitRequest(harness, { type: "DENY" }); // the model is told, and asked again
        },
        CANCEL: async () => {
          harness.app.send({ type: "CANCEL" });
          await waitFor(harness.app, (snapshot) => !snapshot.matches("cancelling"));
        },
        CLEAR: () => {
          harness.app.send({ type: "CLEAR" });
        },
      },
      states: {
        ready: () => {
          check(harness.app.getSnapshot().matches("ready"), "app should be ready");
          check(harness.app.getSnapshot().context.answer === undefined, "ready shows no answer");
          checkInvariants(harness);
        },
        working: () => {
          check(harness.app.getSnapshot().matches("working"), "app should be working");
          check(agentOf(harness).hasTag("busy"), "the agent should be running");
          check(gate.waiting(), "the agent should be waiting for the model");
          checkInvariants(harness);
        },
        approving: () => {
          const { context } = harness.app.getSnapshot();
          check(harness.app.getSnapshot().matches("approving"), "app should ask for approval");
          check(context.pendingCall?.startsWith("charge_") === true, `pending call ${context.pendingCall}`);
          check(agentOf(harness).hasTag("busy"), "the agent should wait for the decision");
          checkInvariants(harness);
        },
        answered: () => {
          checkSettled(harness, "answered", "stop");
          const { answer } = harness.app.getSnapshot().context;
          check(answer === `echo: question ${harness.submitted}`, `unexpected answer ${answer}`);
        },
        withheld: () => {
          checkSettled(harness, "withheld", "guardrail");
          const { answer } = harness.app.getSnapshot().context;
          check(answer === "Sorry, I can't share that.", `unexpected replacement ${answer}`);
        },
        cancelled: () => checkSettled(harness, "cancelled", "aborted"),
      },
    });
    passed++;
    console.log(`✓ ${path.description}`);
  } catch (error) {
    console.log(`✗ ${path.description}\n    ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    harness.app.stop();
  }
}
console.log(`${passed}/${paths.length} paths passed`);
if (passed !== paths.length) process.exitCode = 1;
