import { describe, expect, it } from "vitest";
import { describeAiSdkError } from "../../src/providers/ai-sdk/ai-sdk-errors.js";

// `describeAiSdkError` on thrown values that are not errors (a provider's stream may carry anything).

describe("describeAiSdkError with values that are not errors", () => {
  it("null and primitives are worded as a failed request, never a crash", () => {
    expect(describeAiSdkError(null, "anthropic")).toBe("anthropic request failed: null");
    expect(describeAiSdkError(undefined, "google")).toBe("google request failed: undefined");
    expect(describeAiSdkError("boom", "openai")).toBe("openai request failed: boom");
  });
});
