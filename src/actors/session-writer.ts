import { fromPromise } from "xstate";

/**
 * Where a session's lines go. Implementations must write text in call order and settle each call
 * only when its text is stored (as durable as the backend promises); a rejection means the text may
 * not be stored.
 */
export interface SessionSink {
  /** Appends complete lines (each ending with "\n"). Called with one pending write at a time. */
  write(text: string): Promise<void>;
  /** Releases the backend (file handle, lock). Called once, after the last write settled. */
  close(): Promise<void>;
}

/** Input of the session writer's `writeBatch` actor: the joined lines of one group commit. */
export interface WriteBatchInput {
  sink: SessionSink;
  text: string;
}

/** Writes one batch of lines (a group commit) to the sink. */
export const writeBatchActor = fromPromise<void, WriteBatchInput>(async ({ input }) => {
  if (input.text.length > 0) await input.sink.write(input.text);
});

/** Closes the sink after the queue drained. */
export const closeSinkActor = fromPromise<void, { sink: SessionSink }>(async ({ input }) => {
  await input.sink.close();
});
