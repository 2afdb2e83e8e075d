import { type AnyActorLogic, fromCallback } from "xstate";

/**
 * The stand-in for an actor a machine names in `setup()` but whose implementation comes through
 * `.provide()` (`createAgentMachine` gives them): typed as the real logic, failing when started with
 * an error that names it.
 *
 * Contract: never throws itself; the returned logic's actor fails at start.
 *
 * ```ts
 * import { type CallbackActorLogic, type EventObject, setup } from "xstate";
 * const machine = setup({
 *   actors: { streamReply: notProvided<CallbackActorLogic<EventObject, { prompt: string }>>("streamReply") },
 * }).createMachine({ invoke: { src: "streamReply", input: { prompt: "Hi" } } });
 * ```
 */
export function notProvided<TLogic extends AnyActorLogic>(name: string): TLogic {
  return fromCallback(() => {
    throw new Error(
      `agentchart: the actor "${name}" is not provided: build the machine with createAgentMachine(options) (or .provide() it)`,
    );
  }) as unknown as TLogic;
}
