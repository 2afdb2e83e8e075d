import { describe, expect, it } from "vitest";
import { AiSdkSetupError } from "../../src/ai-sdk.js";
import { asLanguageModelV3 } from "../../src/providers/ai-sdk/language-model.js";

// `asLanguageModelV3` directly: the whole message of each setup error, since the message is the fix
// a developer reads (ai-sdk-setup.test.ts covers the same checks through `fromAiSdk`).

function messageOf(value: unknown): string {
  try {
    asLanguageModelV3(value);
  } catch (error) {
    expect(error).toBeInstanceOf(AiSdkSetupError);
    return (error as AiSdkSetupError).message;
  }
  throw new Error("expected an AiSdkSetupError");
}

const notAModel = (got: string) =>
  'fromAiSdk expects an AI SDK language model (an object with a doStream method, such as anthropic("claude-sonnet-4-5") ' +
  `from "@ai-sdk/anthropic"), got ${got}.`;

const stream = async () => ({});

describe("asLanguageModelV3", () => {
  it("a model id string: the whole hint, with both ways to make a model of it", () => {
    expect(messageOf("gpt-5")).toBe(
      'fromAiSdk expects an AI SDK language model, not the id "gpt-5": pass the provider\'s model, ' +
        'e.g. fromAiSdk(anthropic("gpt-5")) with anthropic from "@ai-sdk/anthropic", or use aiSdkModel({ provider, model }).',
    );
  });

  it("names what it got instead of a model", () => {
    class Settings {
      temperature = 1;
    }
    expect(messageOf(null)).toBe(notAModel("null"));
    expect(messageOf(undefined)).toBe(notAModel("undefined"));
    expect(messageOf(42)).toBe(notAModel("number"));
    expect(messageOf({})).toBe(notAModel("an object without properties"));
    expect(messageOf(Object.create(null))).toBe(notAModel("an object without properties"));
    expect(messageOf(new Settings())).toBe(notAModel("a Settings with temperature"));
    expect(messageOf(new Map())).toBe(notAModel("a Map without properties"));
    expect(messageOf({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 })).toBe(notAModel("an object with a, b, c, d, e"));
  });

  it("another specification: the whole message, naming the provider and the version found", () => {
    expect(messageOf({ specificationVersion: "v2", provider: "anthropic.messages", doStream: stream })).toBe(
      'The model (provider "anthropic.messages") implements the AI SDK language model specification "v2"; ' +
        'agentchart/ai-sdk speaks "v3" (LanguageModelV3: @ai-sdk/provider 3.x, the ai 6 line). ' +
        "Install the provider package's line that implements it, e.g. npm install @ai-sdk/anthropic@^3.",
    );
  });

  it("without a provider name or a version, the message says so plainly", () => {
    expect(messageOf({ provider: 7, doStream: stream })).toMatch(
      /^The model implements the AI SDK language model specification null; /,
    );
  });

  it("a V3 model is returned as it is", () => {
    const model = { specificationVersion: "v3", provider: "p", modelId: "m", doStream: stream };
    expect(asLanguageModelV3(model)).toBe(model);
  });
});
