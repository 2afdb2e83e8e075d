import {
  type AnyActorLogic,
  type AnyActorRef,
  type AnyEventObject,
  assign,
  createActor,
  type InputFrom,
  setup,
  waitFor,
} from "xstate";
import type { ToolStepInput } from "../../src/actors/tool-step.actors.js";
import type { CallingAgent } from "../../src/machines/tool-call/tool-call.context.js";
import type { ToolCall } from "../../src/types/messages.js";
import { assistant } from "./loop-context.js";
import { testModel, user } from "./loop-harness.js";

// Drives one actor logic of src/actors/ on its own: invoked by a tiny parent machine that keeps every
// event the actor sends back, as the agent machine and the tool-call machine invoke them.

/** The root agent a call belongs to (the scripted test model, one earlier prompt), with `patch` applied. */
export function callingAgent(patch: Partial<CallingAgent> = {}): CallingAgent {
  return {
    agentId: "agent-1",
    model: testModel,
    path: [],
    systemPrompt: "You are a test.",
    messages: [user("earlier prompt")],
    toolNames: [],
    ...patch,
  };
}

/** The input of a tool step for `toolCall` with its validated `args`, in the reply that made the call. */
export function toolStepInput(
  toolCall: ToolCall,
  args: unknown,
  agent: CallingAgent = callingAgent(),
): ToolStepInput {
  return {
    toolCall,
    assistantMessage: assistant([toolCall], "toolUse"),
    args,
    idempotencyKey: `${agent.agentId}:${toolCall.id}`,
    agent,
  };
}

/** An invoked actor and what it sent back to its parent so far. */
export interface InvokedActor {
  /** The invoked actor (send it commands). */
  child: AnyActorRef;
  /** Every event the actor sent its parent, in order. */
  received(): AnyEventObject[];
  /** Waits until the actor sent an event of type `match` (or one `match` accepts); resolves with the events so far. */
  until(match: string | ((event: AnyEventObject) => boolean)): Promise<AnyEventObject[]>;
  /** Stops the parent, and so the invoked actor. */
  stop(): void;
}

/** Starts `logic` invoked as `step` by a parent machine that records every event it sends back. */
export function invokeActor<TLogic extends AnyActorLogic>(
  logic: TLogic,
  input: InputFrom<TLogic>,
): InvokedActor {
  const parent = createActor(
    setup({
      types: { context: {} as { received: AnyEventObject[] } },
      actors: { step: logic as AnyActorLogic },
    }).createMachine({
      context: { received: [] },
      invoke: { id: "step", src: "step", input },
      on: { "*": { actions: assign({ received: ({ context, event }) => [...context.received, event] }) } },
    }),
  ).start();
  const received = () => parent.getSnapshot().context.received;
  return {
    child: parent.getSnapshot().children.step as AnyActorRef,
    received,
    until: async (match) => {
      const matches = typeof match === "string" ? (event: AnyEventObject) => event.type === match : match;
      await waitFor(parent, (snapshot) => snapshot.context.received.some(matches));
      return received();
    },
    stop: () => parent.stop(),
  };
}

/** The events an actor sends itself while it is created: `self.send` of a running recorder. */
export function eventRecorder(): { self: AnyActorRef; received: AnyEventObject[] } {
  const received: AnyEventObject[] = [];
  const self = createActor(
    setup({}).createMachine({ on: { "*": { actions: ({ event }) => received.push(event) } } }),
  ).start();
  return { self, received };
}
