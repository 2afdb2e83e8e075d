/**
 * Model-based testing of an app's own agent with `xstate/graph`.
 *
 * The app (`assistantApp`) wraps an `Agent`: `ready` —SUBMIT→ `working` (runs a prompt) → `answered`,
 * or —CANCEL→ `cancelled` (aborts the agent); CLEAR goes back to `ready`. A small *test model*
 * describes the same behaviour abstractly; `createTestModel(...).getShortestPaths()` and
 * `getSimplePaths()` enumerate the paths through it, and each path is replayed against a fresh app
 * with a real Agent, checking every state it reaches. The model the agent talks to is gated, so
 * the test decides when a reply arrives (REPLY) or when the user cancels first (CANCEL) — no timers.
 *
 *   npx tsx examples/model-based-test.ts
 */
import { type Actor, createActor, fromPromise, setup, waitFor } from "xstate";
import { createTestModel } from "xstate/graph";
import { Agent, type AgentMessage, type AssistantMessageEvent, type StreamFn } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

// ── The app under test ────────────────────────────────────────────────────────────────────────────

type AppEvent = { type: "SUBMIT"; text: string } | { type: "CANCEL" } | { type: "CLEAR" };

const assistantApp = setup({
  types: {
    input: {} as { agent: Agent },
    context: {} as { agent: Agent; question: string; answer: string | undefined },
    events: {} as AppEvent,
  },
  actors: {
    ask: fromPromise<string, { agent: Agent; question: string }>(async ({ input }) => {
      await input.agent.prompt(input.question);
      const last = input.agent.state.messages.at(-1) as { content?: { type: string; text?: string }[] };
      return last.content?.find((block) => block.type === "text")?.text ?? "";
    }),
  },
  actions: {
    abortAgent: ({ context }) => context.agent.abort(),
    clearAnswer: ({ context }) => Object.assign(context, { answer: undefined }),
  },
}).createMachine({
  id: "assistantApp",
  context: ({ input }) => ({ agent: input.agent, question: "", answer: undefined }),
  initial: "ready",
  states: {
    ready: {
      on: {
        SUBMIT: {
          target: "working",
          actions: ({ context, event }) => Object.assign(context, { question: event.text }),
        },
      },
    },
    working: {
      invoke: {
        src: "ask",
        input: ({ context }) => ({ agent: context.agent, question: context.question }),
        onDone: {
          target: "answered",
          actions: ({ context, event }) => Object.assign(context, { answer: event.output }),
        },
      },
      on: { CANCEL: { target: "cancelled", actions: "abortAgent" } },
    },
    answered: {
      on: {
        SUBMIT: {
          target: "working",
          actions: ({ context, event }) => Object.assign(context, { question: event.text }),
        },
        CLEAR: { target: "ready", actions: "clearAnswer" },
      },
    },
    cancelled: {
      on: {
        SUBMIT: {
          target: "working",
          actions: ({ context, event }) => Object.assign(context, { question: event.text }),
        },
        // Without this action the paths "… → answered → … → cancelled → CLEAR" showed a stale answer
        // in `ready`; the model-based test found it.
        CLEAR: { target: "ready", actions: "clearAnswer" },
      },
    },
  },
});

// ── A model whose replies the test releases ───────────────────────────────────────────────────────

/**
 * A StreamFn that waits (abortably) until `release()` before echoing the last user message.
 * `nextRequest()` resolves when the next request has arrived and is waiting.
 */
function gatedModel(): { streamFn: StreamFn; release(): void; nextRequest(): Promise<void> } {
  let open: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  const streamFn: StreamFn = (model, context, options) =>
    (async function* (): AsyncGenerator<AssistantMessageEvent> {
      await new Promise<void>((resolve) => {
        open = resolve;
        options.signal?.addEventListener("abort", () => resolve(), { once: true });
        arrived?.();
      });
      const last = context.messages.at(-1);
      const text = last?.role === "user" && typeof last.content === "string" ? last.content : "?";
      yield* scriptedModel([{ text: `echo: ${text}` }])(
        model,
        context,
        options,
      ) as AsyncIterable<AssistantMessageEvent>;
    })();
  return {
    streamFn,
    release: () => open?.(),
    nextRequest: () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      }),
  };
}

// ── The test model: the behaviour we expect, without implementation details ───────────────────────

const expectedBehaviour = setup({
  types: { events: {} as { type: "SUBMIT" } | { type: "REPLY" } | { type: "CANCEL" } | { type: "CLEAR" } },
}).createMachine({
  id: "expected",
  initial: "ready",
  states: {
    ready: { on: { SUBMIT: "working" } },
    working: { on: { REPLY: "answered", CANCEL: "cancelled" } },
    answered: { on: { SUBMIT: "working", CLEAR: "ready" } },
    cancelled: { on: { SUBMIT: "working", CLEAR: "ready" } },
  },
});

// ── Replaying every path against the real app ─────────────────────────────────────────────────────

interface Harness {
  app: Actor<typeof assistantApp>;
  agent: Agent;
  release(): void;
  nextRequest(): Promise<void>;
  submitted: number;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

const lastAssistant = (messages: readonly AgentMessage[]) =>
  [...messages].reverse().find((message) => (message as { role: string }).role === "assistant") as
    | { stopReason: string }
    | undefined;

const testModel = createTestModel(expectedBehaviour);
const paths = [...testModel.getShortestPaths(), ...testModel.getSimplePaths()];
let passed = 0;
for (const path of paths) {
  const gate = gatedModel();
  const agent = new Agent({
    model: { id: "gated", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
    streamFn: gate.streamFn,
  });
  const harness: Harness = {
    app: createActor(assistantApp, { input: { agent } }).start(),
    agent,
    release: gate.release,
    nextRequest: gate.nextRequest,
    submitted: 0,
  };
  await path.test({
    events: {
      SUBMIT: async () => {
        harness.submitted++;
        // The request reaches the model (and waits at the gate) before the next step.
        const requested = harness.nextRequest();
        harness.app.send({ type: "SUBMIT", text: `question ${harness.submitted}` });
        await requested;
      },
      REPLY: async () => {
        harness.release();
        await waitFor(harness.app, (snapshot) => !snapshot.matches("working"));
      },
      CANCEL: async () => {
        harness.app.send({ type: "CANCEL" });
        await harness.agent.waitForIdle();
      },
      CLEAR: () => {
        harness.app.send({ type: "CLEAR" });
      },
    },
    states: {
      ready: () => {
        check(harness.app.getSnapshot().matches("ready"), "app should be ready");
        check(harness.app.getSnapshot().context.answer === undefined, "ready shows no answer");
      },
      working: () => check(harness.agent.state.isStreaming, "the agent should be running while working"),
      answered: () => {
        const { context } = harness.app.getSnapshot();
        check(harness.app.getSnapshot().matches("answered"), "app should show the answer");
        check(
          context.answer === `echo: question ${harness.submitted}`,
          `unexpected answer ${context.answer}`,
        );
      },
      cancelled: () => {
        check(harness.app.getSnapshot().matches("cancelled"), "app should be cancelled");
        check(
          lastAssistant(harness.agent.state.messages)?.stopReason === "aborted",
          "the reply should be aborted",
        );
        check(!harness.agent.state.isStreaming, "the agent should be idle after cancelling");
      },
    },
  });
  passed++;
  console.log(`✓ ${path.description}`);
}
console.log(`${passed}/${paths.length} paths passed`);
