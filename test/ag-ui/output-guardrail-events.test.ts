import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgUiEvent } from "../../src/ag-ui/ag-ui-events.js";
import { CUSTOM_EVENT } from "../../src/ag-ui/shared-state.js";
import { toAgUiEvents } from "../../src/ag-ui/to-ag-ui-events.js";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { testModel } from "../support/loop-harness.js";

describe("typed output and guardrails over AG-UI", () => {
  it("sends output_delta and guardrail_tripped as valid CUSTOM events, and never the tripped text", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: '{"city":"Graz"}' }, { text: "leaked secret" }]),
      guardrails: {
        output: [{ name: "secrets", check: ({ text }) => ({ tripwire: text.includes("secret") }) }],
      },
    });
    const events: AgUiEvent[] = [];
    const subscription = agent.events$.pipe(toAgUiEvents()).subscribe((event) => events.push(event));
    await agent.prompt("City?", { output: z.object({ city: z.string() }) });
    await agent.prompt("And the secret?");
    subscription.unsubscribe();
    for (const event of events) expect(EventSchemas.safeParse(event).success, event.type).toBe(true);
    const custom = (name: string) =>
      events.flatMap((event) => (event.type === "CUSTOM" && event.name === name ? [event.value] : []));
    expect(custom(CUSTOM_EVENT.outputDelta).at(-1)).toEqual({ partial: { city: "Graz" } });
    expect(custom(CUSTOM_EVENT.guardrailTripped)).toEqual([
      { guardrail: "secrets", kind: "output", reason: "tripped" },
    ]);
    expect(JSON.stringify(events)).not.toContain("leaked");
  });
});
