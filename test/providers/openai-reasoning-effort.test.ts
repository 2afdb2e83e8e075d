import { describe, expect, it } from "vitest";
import { reasoningEffort } from "../../src/providers/openai/wire-protocol.js";
import type { Model } from "../../src/types/model.js";

const model = (reasoning: boolean) =>
  ({ id: "m", provider: "p", api: "openai-completions", reasoning }) as Model;

describe("reasoningEffort", () => {
  it("sends the level asked of a reasoning model, xhigh as high", () => {
    expect(reasoningEffort(model(true), { reasoning: "low" })).toBe("low");
    expect(reasoningEffort(model(true), { reasoning: "xhigh" })).toBe("high");
  });

  it("sends nothing when none is asked, or to a model that does not reason", () => {
    expect(reasoningEffort(model(true), {})).toBeUndefined();
    expect(reasoningEffort(model(false), { reasoning: "high" })).toBeUndefined();
  });
});
