import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineHandoff, defineTool } from "../../src/index.js";
import type { AgentMessage } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";

const lookup = defineTool({
  name: "lookup_invoice",
  description: "Finds an invoice",
  parameters: z.object({ id: z.string() }),
  execute: async () => ({ content: [{ type: "text", text: "found" }] }),
});
const model = { id: "billing-model", api: "x", provider: "y", contextWindow: 1000, maxTokens: 100 } as Model;

describe("defineHandoff", () => {
  it("names the tool after the agent and describes it from the agent's description", () => {
    const tool = defineHandoff({ agent: { name: "billing", description: "invoices and refunds" } });
    expect(tool.name).toBe("transfer_to_billing");
    expect(tool.description).toBe("Hand the conversation over to the billing agent: invoices and refunds.");
    expect(tool.jsonSchema).toMatchObject({ type: "object", properties: {} });
  });

  it("describes an agent without a description by its name alone", () => {
    const tool = defineHandoff({ agent: { name: "billing" } });
    expect(tool.description).toBe("Hand the conversation over to the billing agent.");
  });

  it("takes the tool name and description given", () => {
    const tool = defineHandoff({
      agent: { name: "billing", description: "ignored" },
      toolName: "to_billing",
      description: "When money is involved",
    });
    expect(tool).toMatchObject({ name: "to_billing", description: "When money is involved" });
  });

  it("hands off to the agent's prompt, tools and model, with the input filter given", () => {
    const inputFilter = (messages: AgentMessage[]) => messages.slice(-1);
    const tool = defineHandoff({
      agent: { name: "billing", systemPrompt: "You do billing.", tools: [lookup], model },
      inputFilter,
    });
    expect(tool.handoff).toEqual({
      agent: "billing",
      systemPrompt: "You do billing.",
      tools: [lookup],
      model,
      inputFilter,
    });
  });

  it("hands off to an agent without prompt, tools or model as an empty prompt and no tools", () => {
    const tool = defineHandoff({ agent: { name: "billing" } });
    expect(tool.handoff).toEqual({ agent: "billing", systemPrompt: "", tools: [] });
    expect(Object.hasOwn(tool.handoff ?? {}, "model")).toBe(false);
    expect(Object.hasOwn(tool.handoff ?? {}, "inputFilter")).toBe(false);
  });

  it("answers a call with the transfer and the handoff as data", async () => {
    const full = defineHandoff({
      agent: { name: "billing", systemPrompt: "You do billing.", tools: [lookup], model },
    });
    expect(await full.execute({}, {} as never)).toEqual({
      content: [{ type: "text", text: "Transferred to billing." }],
      details: {
        handoff: { agent: "billing", systemPrompt: "You do billing.", toolNames: ["lookup_invoice"], model },
      },
    });
    const bare = defineHandoff({ agent: { name: "support" } });
    expect(await bare.execute({}, {} as never)).toEqual({
      content: [{ type: "text", text: "Transferred to support." }],
      details: { handoff: { agent: "support", systemPrompt: "", toolNames: [] } },
    });
  });
});
