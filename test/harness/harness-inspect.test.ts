import { describe, expect, it } from "vitest";
import type { InspectionEvent } from "xstate";
import { createHarness } from "../support/harness-support.js";

describe("harness inspection", () => {
  it("passes the inspect observer to the phase machine and to the loop actors", async () => {
    const seen: InspectionEvent[] = [];
    const { harness } = await createHarness([{ text: "hello" }], { inspect: (event) => seen.push(event) });
    await harness.prompt("hi");
    const values = seen.flatMap((event) =>
      event.type === "@xstate.snapshot"
        ? [JSON.stringify((event.snapshot as { value?: unknown }).value)]
        : [],
    );
    expect(values).toContain('"turn"'); // the harness phase machine
    expect(values).toContain('{"running":{"streaming":"released"}}'); // the Agent's loop actor
  });
});
