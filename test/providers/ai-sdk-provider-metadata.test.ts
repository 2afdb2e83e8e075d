import { describe, expect, it } from "vitest";
import {
  providerFamily,
  redactedDataFrom,
  signatureFrom,
  signatureOptions,
} from "../../src/providers/ai-sdk/provider-metadata.js";

describe("providerFamily", () => {
  it("is the provider id up to its first dot", () => {
    expect(providerFamily("anthropic.messages")).toBe("anthropic");
    expect(providerFamily("google.generative-ai.chat")).toBe("google");
    expect(providerFamily("mistral")).toBe("mistral");
    expect(providerFamily(".odd")).toBe("");
  });
});

describe("signatureFrom", () => {
  it("keeps the bare signature when the metadata holds only the family's signature", () => {
    expect(signatureFrom({ anthropic: { signature: "EqQB" } }, "anthropic")).toBe("EqQB");
    expect(signatureFrom({ google: { thoughtSignature: "CiQB" } }, "google")).toBe("CiQB");
    expect(signatureFrom({ anthropic: { signature: "EqQB" } }, "anthropic", true)).toBe("EqQB");
  });

  it("keeps other reasoning metadata whole, as JSON, and drops it for text and tool calls", () => {
    const openai = { openai: { itemId: "rs_1", reasoningEncryptedContent: "gAAA" } };
    expect(signatureFrom(openai, "openai", true)).toBe(JSON.stringify(openai));
    expect(signatureFrom(openai, "openai")).toBeUndefined();
    const google = { google: { signature: "wrong key" } };
    expect(signatureFrom(google, "google", true)).toBe(JSON.stringify(google));
    expect(signatureFrom(google, "google")).toBeUndefined();
  });

  it("finds the family's signature among other metadata, unless it is no string", () => {
    const mixed = { anthropic: { signature: "EqQB", cacheCreation: 3 } };
    expect(signatureFrom(mixed, "anthropic")).toBe("EqQB");
    expect(signatureFrom(mixed, "anthropic", true)).toBe(JSON.stringify(mixed));
    const twoFamilies = { anthropic: { signature: "EqQB" }, gateway: { cost: "1" } };
    expect(signatureFrom(twoFamilies, "anthropic")).toBe("EqQB");
    expect(signatureFrom(twoFamilies, "anthropic", true)).toBe(JSON.stringify(twoFamilies));
    expect(signatureFrom({ anthropic: { signature: 5 } }, "anthropic")).toBeUndefined();
    expect(signatureFrom({ anthropic: { signature: 5 } }, "anthropic", true)).toBe(
      '{"anthropic":{"signature":5}}',
    );
  });

  it("is undefined for absent or empty metadata", () => {
    expect(signatureFrom(undefined, "anthropic", true)).toBeUndefined();
    expect(signatureFrom({}, "anthropic", true)).toBeUndefined();
    expect(signatureFrom({ openai: {} }, "anthropic")).toBeUndefined();
  });
});

describe("signatureOptions", () => {
  it("sends a bare signature back under the family's key", () => {
    expect(signatureOptions("EqQB", "anthropic")).toEqual({ anthropic: { signature: "EqQB" } });
    expect(signatureOptions("CiQB", "google")).toEqual({ google: { thoughtSignature: "CiQB" } });
    expect(signatureOptions("{not json", "anthropic")).toEqual({ anthropic: { signature: "{not json" } });
  });

  it("sends whole metadata kept as a JSON object back as it was", () => {
    const openai = { openai: { itemId: "rs_1" } };
    expect(signatureOptions(JSON.stringify(openai), "openai")).toEqual(openai);
    expect(signatureOptions("[1]", "openai")).toEqual({ openai: { signature: "[1]" } });
    expect(signatureOptions("{}", "openai")).toEqual({});
  });

  it("sends a redacted block's data as redactedData, and nothing without a signature", () => {
    expect(signatureOptions("EmwK", "anthropic", true)).toEqual({ anthropic: { redactedData: "EmwK" } });
    expect(signatureOptions('{"a":1}', "anthropic", true)).toEqual({
      anthropic: { redactedData: '{"a":1}' },
    });
    expect(signatureOptions(undefined, "anthropic")).toBeUndefined();
    expect(signatureOptions("", "anthropic", true)).toBeUndefined();
  });
});

describe("redactedDataFrom", () => {
  it("reads the family's redactedData when it is a string", () => {
    expect(redactedDataFrom({ anthropic: { redactedData: "EmwK" } }, "anthropic")).toBe("EmwK");
    expect(redactedDataFrom({ anthropic: { redactedData: 1 } }, "anthropic")).toBeUndefined();
    expect(redactedDataFrom({ google: { redactedData: "x" } }, "anthropic")).toBeUndefined();
    expect(redactedDataFrom(undefined, "anthropic")).toBeUndefined();
  });
});
