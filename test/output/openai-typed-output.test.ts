import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { openai } from "../../src/openai.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { chatModel, chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

// The agent, the real `openai` SDK and a loopback Chat Completions server: what the server receives
// for a run that expects typed output, without and with tools.

let server: OpenAITestServer;
beforeAll(async () => {
  server = await OpenAITestServer.start();
});
afterAll(() => server.close());

const Forecast = z.object({ city: z.string(), celsius: z.number() });
const lookup = defineTool({
  name: "lookup",
  description: "Looks a city up",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ content: [{ type: "text", text: `${city}: 18°C` }] }),
});

describe("typed output over the OpenAI provider, end to end", () => {
  it("no tools: the request carries response_format with the strict JSON Schema; the JSON reply is the output", async () => {
    server.enqueue(
      streamReply([
        chunk({ role: "assistant", content: '{"city":"Oslo",' }),
        chunk({ content: '"celsius":4}' }),
        chunk({}, "stop"),
        usageChunk(50, 9),
      ]),
    );
    const agent = new Agent({
      model: chatModel(),
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
    });
    const result = await agent.prompt("Forecast for Oslo", { output: Forecast });
    expect(result).toMatchObject({ output: { city: "Oslo", celsius: 4 }, stopReason: "stop" });
    const body = server.requests.at(-1)!.body;
    expect(body.tools).toBeUndefined();
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "final_answer",
        strict: true,
        schema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number" } },
          required: ["city", "celsius"],
          additionalProperties: false,
        },
      },
    });
  });

  it("with tools: final_answer is offered beside them and no response_format is sent; its call is the output", async () => {
    server.enqueue(
      streamReply([
        chunk({
          tool_calls: [
            {
              index: 0,
              id: "call_final",
              type: "function",
              function: { name: "final_answer", arguments: '{"city":"Rome","celsius":18}' },
            },
          ],
        }),
        chunk({}, "tool_calls"),
        usageChunk(80, 12),
      ]),
    );
    const agent = new Agent({
      model: chatModel(),
      streamFn: openai({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 }),
      tools: [lookup],
    });
    const result = await agent.prompt("Forecast for Rome", { output: Forecast });
    expect(result.output).toEqual({ city: "Rome", celsius: 18 });
    const body = server.requests.at(-1)!.body;
    expect(body.response_format).toBeUndefined();
    expect(body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      "lookup",
      "final_answer",
    ]);
  });
});
