import { createStore } from "@xstate/store";
import type { AgentMessage } from "../types/messages.js";

export type QueueName = "steering" | "followUp";
/** `one-at-a-time` drains the oldest message per drain point; `all` drains the whole queue. */
export type QueueMode = "one-at-a-time" | "all";

/** The Agent's steering and follow-up queues, as an @xstate/store store. */
export function createMessageQueues() {
  return createStore({
    context: { steering: [] as AgentMessage[], followUp: [] as AgentMessage[] },
    on: {
      enqueue: (ctx, event: { queue: QueueName; message: AgentMessage }) => ({
        ...ctx,
        [event.queue]: [...ctx[event.queue], event.message],
      }),
      take: (ctx, event: { queue: QueueName; count: number }) =>
        event.count === 0 ? undefined : { ...ctx, [event.queue]: ctx[event.queue].slice(event.count) },
      restore: (ctx, event: { queue: QueueName; messages: AgentMessage[] }) => ({
        ...ctx,
        [event.queue]: [...event.messages, ...ctx[event.queue]],
      }),
      clear: (ctx, event: { queue?: QueueName }) =>
        event.queue ? { ...ctx, [event.queue]: [] } : { steering: [], followUp: [] },
    },
  });
}

export type MessageQueues = ReturnType<typeof createMessageQueues>;

/** Removes and returns the messages due at a drain point. */
export function drainQueue(queues: MessageQueues, queue: QueueName, mode: QueueMode): AgentMessage[] {
  const waiting = queues.get().context[queue];
  if (waiting.length === 0) return [];
  const taken = mode === "all" ? waiting : waiting.slice(0, 1);
  queues.trigger.take({ queue, count: taken.length });
  return taken;
}
