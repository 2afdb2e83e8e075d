import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { applyAgUiEvent, initialClientContext } from "../../src/client/agent-client-state.js";
import { readSse } from "../../src/client/sse-reader.js";
import { createClient } from "../../src/postgres.js";
import { runInput, serveOnLoopback } from "../support/ag-ui-server.js";
import { workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("agui_pg");

/** A prompt whose 160-character echo streams in 40 deltas (worker mode `gated`). */
const PROMPT = `stream ${"abcdefg".repeat(21)}`;

interface Received {
  id: number;
  event: AgUiEvent;
}

/**
 * Posts a run request and reads its events into `into` until the run's last event, or until
 * `stopWhen` holds (then the connection is cut). Every event must pass @ag-ui/core's schemas.
 */
async function read(
  url: string,
  body: unknown,
  into: Received[],
  options: { lastEventId?: number; stopWhen?: (received: Received[]) => boolean } = {},
): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.lastEventId ? { "last-event-id": String(options.lastEventId) } : {}),
    },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  try {
    for await (const message of readSse(response.body!)) {
      const event = JSON.parse(message.data) as AgUiEvent;
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
      into.push({ id: Number(message.id), event });
      if (event.type === "RUN_FINISHED" || event.type === "RUN_ERROR") return;
      if (options.stopWhen?.(into)) {
        controller.abort(); // the connection is cut mid-run
        return;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
}

const contents = (received: readonly Received[]) =>
  received.filter(({ event }) => event.type === "TEXT_MESSAGE_CONTENT");

/** The client store's state after the events, as the app sees it. */
function storeAfter(received: readonly Received[]) {
  let context = initialClientContext("web");
  for (const { id, event } of received) context = applyAgUiEvent(context, event, id);
  return { messages: context.messages, status: context.status, streaming: context.streaming };
}

/** Resolves once `received` holds `count` text deltas; `received` is filled by a running `read`. */
function until(received: Received[], count: number, reading: Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const push = received.push.bind(received);
    const check = () => {
      if (contents(received).length >= count) resolve();
    };
    received.push = (...items) => {
      const length = push(...items);
      check();
      return length;
    };
    check();
    reading.then(() => {
      check();
      reject(new Error(`the stream ended with ${contents(received).length} of ${count} text deltas`));
    }, reject);
  });
}

describe("AG-UI runs served from PostgreSQL (the worker runs the agent, web processes stream it)", () => {
  it("a reader cut mid-reply reconnects to another web process with Last-Event-ID: every event once, the same end", {
    timeout: 60_000,
  }, async () => {
    const { schema, client } = await fixture.setup();
    const worker = await fixture.startWorker(schema, "gated");
    const otherClient = await createClient({ connectionString: fixture.url, schema });
    const webA = await serveOnLoopback(createAgUiHandler({ sessions: client }));
    const webB = await serveOnLoopback(createAgUiHandler({ sessions: otherClient }));
    try {
      const input = runInput("web", "run-1", PROMPT);
      const cut: Received[] = [];
      await read(webA.url, input, cut, { stopWhen: (received) => contents(received).length === 10 });
      const gated = await worker.waitFor("GATED\n");
      // A second reader on A joins the same run (it is not started twice) and reads it uncut.
      const uncut: Received[] = [];
      const uncutReading = read(webA.url, input, uncut);
      const resumed: Received[] = [];
      const resumedReading = read(webB.url, input, resumed, { lastEventId: cut.at(-1)!.id });
      worker.child.stdin.write("go\n");
      await worker.waitFor("GATED\n", gated);
      // The last delta is out, the message not yet stored: both readers stream every delta live.
      await until(uncut, 40, uncutReading);
      await until(resumed, 30, resumedReading);
      worker.child.stdin.write("go\n");
      await Promise.all([uncutReading, resumedReading]);

      const joined = [...cut, ...resumed];
      // Identical events with identical ids, apart from the state snapshots each reader was sent.
      const positioned = (received: readonly Received[]) =>
        received.filter(({ event }) => event.type !== "STATE_SNAPSHOT");
      expect(positioned(joined)).toEqual(positioned(uncut));
      expect(new Set(positioned(joined).map(({ id }) => id)).size).toBe(positioned(joined).length);
      expect(contents(joined)).toHaveLength(40);
      expect(storeAfter(joined)).toEqual(storeAfter(uncut));
      expect(storeAfter(joined).messages.map((message) => message.content)).toEqual([
        PROMPT,
        `echo: ${PROMPT}`,
      ]);
      expect(joined.at(-1)!.event.type).toBe("RUN_FINISHED");
      const { rows } = await fixture.server.pool.query(
        `SELECT count(*)::int AS left FROM "${schema}".reply_deltas`,
      );
      expect(rows).toEqual([{ left: 0 }]);
      // After the end, a reconnect from the middle of the reply (its deltas deleted) still ends the same.
      const late: Received[] = [];
      await read(webB.url, input, late, { lastEventId: cut.at(-1)!.id });
      expect(late[0]!.event.type).toBe("MESSAGES_SNAPSHOT");
      expect(storeAfter([...cut, ...late])).toEqual(storeAfter(uncut));
    } finally {
      await webA.close();
      await webB.close();
      await otherClient.close();
    }
  });

  it("the worker is killed mid-reply: another worker makes the reply again, the reconnecting reader drops the partial one", {
    timeout: 60_000,
  }, async () => {
    const { schema, client } = await fixture.setup();
    const first = await fixture.startWorker(schema, "gated");
    const otherClient = await createClient({ connectionString: fixture.url, schema });
    const webA = await serveOnLoopback(createAgUiHandler({ sessions: client }));
    const webB = await serveOnLoopback(createAgUiHandler({ sessions: otherClient }));
    try {
      const input = runInput("killed", "run-1", PROMPT);
      const cut: Received[] = [];
      await read(webA.url, input, cut, { stopWhen: (received) => contents(received).length === 10 });
      await first.waitFor("GATED\n");
      first.child.kill("SIGKILL");
      await first.exited;
      // A new worker takes the session once the dead one's lease lapses and makes the reply again.
      await fixture.startWorker(schema);
      const resumed: Received[] = [];
      await read(webB.url, input, resumed, { lastEventId: cut.at(-1)!.id });
      const fresh: Received[] = [];
      await read(webA.url, input, fresh);

      expect(resumed.some(({ event }) => event.type === "MESSAGES_SNAPSHOT")).toBe(true);
      expect(resumed.at(-1)!.event.type).toBe("RUN_FINISHED");
      const end = storeAfter([...cut, ...resumed]);
      expect(end).toEqual(storeAfter(fresh));
      expect(end.messages.map((message) => message.content)).toEqual([PROMPT, `echo: ${PROMPT}`]);
      expect(end.streaming).toBeUndefined();
      const { rows } = await fixture.server.pool.query(
        `SELECT count(*)::int AS left FROM "${schema}".reply_deltas`,
      );
      expect(rows).toEqual([{ left: 0 }]);
    } finally {
      await webA.close();
      await webB.close();
      await otherClient.close();
    }
  });
  it("a run parked for approval shows the waiting call; `resume` on another web process approves it and the run ends there", {
    timeout: 60_000,
  }, async () => {
    const { schema, client } = await fixture.setup();
    await fixture.startWorker(schema);
    const otherClient = await createClient({ connectionString: fixture.url, schema });
    const webA = await serveOnLoopback(createAgUiHandler({ sessions: client }));
    const webB = await serveOnLoopback(createAgUiHandler({ sessions: otherClient }));
    try {
      const input = runInput("approve", "run-1", "guarded door");
      const waiting: Received[] = [];
      await read(webA.url, input, waiting, {
        stopWhen: (received) => {
          const last = received.at(-1)!.event;
          return last.type === "STATE_SNAPSHOT" && (last.snapshot as { phase: string }).phase === "waiting";
        },
      });
      expect(waiting.at(-1)!.event).toMatchObject({
        snapshot: {
          awaitingApproval: [{ toolCallId: "call-1", toolName: "guarded", args: { target: "door" } }],
        },
      });
      const resumed: Received[] = [];
      await read(
        webB.url,
        { ...input, resume: [{ interruptId: "call-1", status: "resolved", payload: { approved: true } }] },
        resumed,
        { lastEventId: waiting.at(-1)!.id },
      );
      expect(resumed.at(-1)!.event.type).toBe("RUN_FINISHED");
      const end = storeAfter([...waiting, ...resumed]);
      expect(end.messages.map((message) => [message.role, message.content ?? null])).toEqual([
        ["user", "guarded door"],
        ["assistant", null],
        ["tool", "guarded ran"],
        ["assistant", "done: guarded ran"],
      ]);
      const fresh: Received[] = [];
      await read(webA.url, input, fresh);
      expect(end).toEqual(storeAfter(fresh));
    } finally {
      await webA.close();
      await webB.close();
      await otherClient.close();
    }
  });
});
