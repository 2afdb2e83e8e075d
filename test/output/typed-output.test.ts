import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AgentEvent } from "../../src/types/events.js";
import { OutputValidationError } from "../../src/types/output.js";
import { echoTool, testModel } from "../support/loop-harness.js";

const City = z.object({ city: z.string(), population: z.number().int() });

function recorder(agent: Agent<unknown>) {
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return events;
}

describe("typed output", () => {
  it("asks the provider for the schema when no tools are active, and resolves with the typed value", async () => {
    const model = scriptedModel([{ text: '{"city":"Paris","population":2102650}' }]);
    const agent = new Agent({ model: testModel, streamFn: model });
    const events = recorder(agent);
    const result = await agent.prompt("Biggest city of France?", { output: City });
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; population: number } | undefined>();
    expect(result).toMatchObject({ output: { city: "Paris", population: 2102650 }, stopReason: "stop" });
    expect(result.error).toBeUndefined();
    const request = model.calls[0]!.context;
    expect(request.tools).toEqual([]);
    expect(request.output).toMatchObject({ name: "final_answer", strict: true });
    expect(request.output!.schema).toMatchObject({ type: "object", required: ["city", "population"] });
    expect(events.at(-1)).toMatchObject({ type: "agent_end", output: { city: "Paris" }, stopReason: "stop" });
    expect(agent.actor.getSnapshot().value).toBe("idle");
  });

  it("takes the agent's schema when the prompt names none, typed from it", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([{ text: '```json\n{"city":"Lyon","population":1}\n```' }]),
      output: City,
    });
    const result = await agent.prompt("A city");
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; population: number } | undefined>();
    expect(result.output).toEqual({ city: "Lyon", population: 1 });
  });

  it("with tools active offers a final-answer tool beside them; its call ends the run with its arguments", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "look up" } }] },
      { toolCalls: [{ name: "final_answer", arguments: { city: "Rome", population: 2800000 } }] },
      { text: "never asked" },
    ]);
    const agent = new Agent({ model: testModel, streamFn: model, tools: [echoTool()] });
    const result = await agent.prompt("Capital of Italy", { output: City });
    expect(result.output).toEqual({ city: "Rome", population: 2800000 });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]!.context.output).toBeUndefined();
    expect(model.calls[0]!.context.tools.map((tool) => tool.name)).toEqual(["echo", "final_answer"]);
    const last = agent.state.messages.at(-1) as { role: string; toolName: string; isError: boolean };
    expect(last).toMatchObject({ role: "toolResult", toolName: "final_answer", isError: false });
  });

  it("repairs: a reply that fails validation gets a message naming the issues, and the next one passes", async () => {
    const model = scriptedModel([
      { text: '{"city":"Oslo","population":"many"}' },
      { text: '{"city":"Oslo","population":709037}' },
    ]);
    const agent = new Agent({ model: testModel, streamFn: model });
    const result = await agent.prompt("Capital of Norway", { output: City });
    expect(result.output).toEqual({ city: "Oslo", population: 709037 });
    const repair = model.calls[1]!.context.messages.at(-1) as { role: string; content: string };
    expect(repair.role).toBe("user");
    expect(repair.content).toContain("population");
    expect(repair.content).toContain("expected number");
  });

  it("repair exhausted: the run ends with stopReason error and an OutputValidationError with the issues and raw text", async () => {
    const model = scriptedModel([{ text: "not json" }, { text: '{"city":1}' }, { text: '{"city":2}' }]);
    const agent = new Agent({ model: testModel, streamFn: model });
    const result = await agent.prompt("?", { output: City, maxOutputRepairs: 1 });
    expect(model.calls).toHaveLength(2);
    expect(result.stopReason).toBe("error");
    expect(result.output).toBeUndefined();
    expect(result.error).toBeInstanceOf(OutputValidationError);
    const error = result.error as OutputValidationError;
    expect(error.raw).toBe('{"city":1}');
    expect(error.issues.map((issue) => issue.path)).toEqual([["city"], ["population"]]);
    expect(agent.state.errorMessage).toContain("city");
    expect(agent.actor.getSnapshot().value).toBe("idle");
  });

  it("a final-answer call with invalid arguments gets an error result with the issues, and the model calls again", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "final_answer", arguments: { city: "Bern" } }] },
      { toolCalls: [{ name: "final_answer", arguments: { city: "Bern", population: 134000 } }] },
    ]);
    const agent = new Agent({ model: testModel, streamFn: model, tools: [echoTool()] });
    const result = await agent.prompt("Capital of Switzerland", { output: City });
    expect(result.output).toEqual({ city: "Bern", population: 134000 });
    const firstResult = model.calls[1]!.context.messages.at(-1) as {
      role: string;
      isError: boolean;
      content: { text: string }[];
    };
    expect(firstResult).toMatchObject({ role: "toolResult", isError: true });
    expect(firstResult.content[0]!.text).toContain("population");
  });

  it("a non-object schema goes through the final-answer tool as its value argument", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "final_answer", arguments: { value: ["a", "b"] } }] },
    ]);
    const agent = new Agent({ model: testModel, streamFn: model, tools: [echoTool()] });
    const result = await agent.prompt("Two letters", { output: z.array(z.string()) });
    expect(result.output).toEqual(["a", "b"]);
    const spec = model.calls[0]!.context.tools.find((tool) => tool.name === "final_answer")!;
    expect(spec.parameters).toMatchObject({ type: "object", required: ["value"] });
  });

  it("streams output_delta events with the value parsed so far", async () => {
    const model = scriptedModel([{ text: '{"city":"Madrid","population":3300000}', deltas: 6 }]);
    const agent = new Agent({ model: testModel, streamFn: model });
    const partials: unknown[] = [];
    agent.subscribe((event) => {
      if (event.type === "output_delta") partials.push(event.partial);
    });
    await agent.prompt("Capital of Spain", { output: City });
    expect(partials.length).toBeGreaterThan(2);
    expect(partials.at(-1)).toEqual({ city: "Madrid", population: 3300000 });
    expect(partials.some((p) => (p as { population?: number }).population === undefined)).toBe(true);
  });

  it("refuses an agent tool named final_answer when a run expects output", async () => {
    const agent = new Agent({
      model: testModel,
      streamFn: scriptedModel([]),
      tools: [echoTool("final_answer")],
    });
    await expect(agent.prompt("?", { output: City })).rejects.toThrow(/final_answer/);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("without a schema, a run resolves with stopReason and no output", async () => {
    const agent = new Agent({ model: testModel, streamFn: scriptedModel([{ text: "hi" }]) });
    const result = await agent.prompt("hello");
    expect(result).toMatchObject({ output: undefined, stopReason: "stop" });
    expect(result.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
  });
});
