import { afterEach, describe, expect, it } from "vitest";
import { postRun, readRun, runInput, scriptedAgents, serveOnLoopback } from "../support/ag-ui-server.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Asks for the run again with exactly this `Last-Event-ID` header text. */
function rejoin(url: string, input: ReturnType<typeof runInput>, header: string) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "last-event-id": header },
    body: JSON.stringify(input),
  });
}

describe("Last-Event-ID on a run's request", () => {
  it("replays the run from the event after the one named, for every id of the run and past its end", async () => {
    const { handler, models } = scriptedAgents(() => [
      { toolCalls: [{ id: "c1", name: "upper", arguments: { text: "a" } }] },
      { text: "Two sentences. Streamed in pieces.", deltas: 4 },
    ]);
    const served = await serveOnLoopback(handler);
    servers.push(served);
    const input = runInput("t1", "run-1", "Go");
    const whole = await readRun(await postRun(served.url, input));
    expect(whole.map((entry) => entry.id)).toEqual(whole.map((_, index) => index + 1));
    expect(whole.at(-1)?.event.type).toBe("RUN_FINISHED");
    for (let seen = 1; seen <= whole.length + 1; seen++) {
      const replayed = await readRun(await rejoin(served.url, input, String(seen)));
      expect(replayed, `Last-Event-ID ${seen}`).toEqual(whole.slice(seen));
    }
    expect(models.get("t1")?.calls).toHaveLength(2);
  });

  it("treats an id that is not a positive whole number as none: the whole run", async () => {
    const { handler } = scriptedAgents(() => [{ text: "Hello there." }]);
    const served = await serveOnLoopback(handler);
    servers.push(served);
    const input = runInput("t2", "run-2", "Hi");
    const whole = await readRun(await postRun(served.url, input));
    for (const header of ["", "0", "-3", "2.5", "abc", "1e400", " 2 x"]) {
      expect(await readRun(await rejoin(served.url, input, header)), `Last-Event-ID "${header}"`).toEqual(
        whole,
      );
    }
    expect(await readRun(await rejoin(served.url, input, " 2 "))).toEqual(whole.slice(2));
  });
});
