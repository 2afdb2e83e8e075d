import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { StreamFn } from "../../src/types/stream.js";
import { deferred, testModel } from "../support/loop-harness.js";

describe("an agent actor stopped from outside mid-reply", () => {
  it("aborts the run's signal, which the StreamFn was given", async () => {
    const called = deferred<AbortSignal>();
    // A model call that never answers: only the signal can end it.
    const streamFn: StreamFn = (_model, _context, options) => {
      called.resolve(options!.signal!);
      return new Observable(() => {});
    };
    const agent = new Agent({ model: testModel, streamFn });
    void agent.prompt("hi");
    const signal = await called.promise;
    expect(agent.actor.getSnapshot().matches({ running: "streaming" })).toBe(true);
    expect(signal.aborted).toBe(false);
    agent.actor.stop();
    expect(signal.aborted).toBe(true);
  });

  it("leaves the run's signal alone when the reply had already finished", async () => {
    let signal: AbortSignal | undefined;
    const model = scriptedModel([{ text: "done" }]);
    const streamFn: StreamFn = (m, context, options) => {
      signal = options!.signal!;
      return model(m, context, options);
    };
    const agent = new Agent({ model: testModel, streamFn });
    await agent.prompt("hi");
    agent.actor.stop();
    expect(signal?.aborted).toBe(false);
  });
});
