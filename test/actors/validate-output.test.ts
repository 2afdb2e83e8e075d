/**
 * The `validateOutput` actor on its own (`createActor(validateOutputActor(implementations), { input })`),
 * as the agent machine invokes it in `validatingOutput`: which schema it checks with, the verdict it
 * answers, and that it never rejects.
 */
import { describe, expect, it } from "vitest";
import { createActor, toPromise } from "xstate";
import { z } from "zod";
import { type OutputValidation, validateOutputActor } from "../../src/actors/validate-output.actor.js";
import { notJsonIssue, type OutputCandidate } from "../../src/loop/output-steps.js";
import type { ToolCall } from "../../src/types/messages.js";
import { implementationsOf, settledValue } from "../support/actor-harness-a.js";

const answerSchema = z.object({ answer: z.number() });
/** A run's output request for `schema` (its JSON Schema object is what the context holds). */
const requestOf = (schema: z.ZodType) => ({ name: "out", schema: z.toJSONSchema(schema), strict: true });
const textCandidate = (value: unknown): OutputCandidate => ({
  via: "text",
  value,
  raw: JSON.stringify(value),
});
const call: ToolCall = { type: "toolCall", id: "c1", name: "final_answer", arguments: { answer: 1 } };

/** The verdict of the actor built from `implementations` for `validation`. */
function validate(implementations: ReturnType<typeof implementationsOf>, validation: OutputValidation) {
  return settledValue(
    toPromise(createActor(validateOutputActor(implementations), { input: validation }).start()),
  );
}

describe("the validateOutput actor", () => {
  it("accepts a value that matches the run's schema, answering the parsed value", async () => {
    const implementations = implementationsOf();
    const schema = z.object({ answer: z.coerce.number() });
    const request = requestOf(schema);
    implementations.outputSchemas.set(request.schema, schema);
    expect(
      await validate(implementations, { candidate: textCandidate({ answer: "42" }), request }),
    ).toStrictEqual({
      ok: true,
      value: { answer: 42 },
    });
  });

  it("answers zod's issues, with paths of names and indexes, for a value that does not match", async () => {
    const schema = z.object({ items: z.array(z.object({ n: z.number() })) });
    const implementations = implementationsOf({ output: schema });
    const verdict = await validate(implementations, {
      candidate: { via: "tool", call, value: { items: [{ n: 1 }, { n: "two" }] }, raw: "" },
      request: requestOf(schema),
    });
    expect(verdict).toStrictEqual({
      ok: false,
      issues: [{ path: ["items", 1, "n"], message: "Invalid input: expected number, received string" }],
    });
  });

  it("names a symbol key of an issue's path by its description", async () => {
    const key = Symbol("secret");
    const schema = z.unknown().superRefine((_, ctx) => {
      ctx.addIssue({ code: "custom", message: "hidden", path: [key, 0] });
    });
    const verdict = await validate(implementationsOf({ output: schema }), {
      candidate: textCandidate(1),
      request: requestOf(z.number()),
    });
    expect(verdict).toStrictEqual({
      ok: false,
      issues: [{ path: ["Symbol(secret)", 0], message: "hidden" }],
    });
  });

  it("a reply that is not JSON fails with that reason, before any schema runs", async () => {
    const throwing = z.unknown().refine(() => {
      throw new Error("must not run");
    });
    const verdict = await validate(implementationsOf({ output: throwing }), {
      candidate: { via: "text", value: undefined, parseError: "Unexpected token h", raw: "hello" },
      request: requestOf(answerSchema),
    });
    expect(verdict).toStrictEqual({ ok: false, issues: [notJsonIssue("Unexpected token h")] });
  });

  it("checks with the run's own schema before the agent's", async () => {
    const own = z.object({ answer: z.string() });
    const implementations = implementationsOf({ output: answerSchema });
    const request = requestOf(own);
    implementations.outputSchemas.set(request.schema, own);
    const verdict = await validate(implementations, { candidate: textCandidate({ answer: "yes" }), request });
    expect(verdict).toStrictEqual({ ok: true, value: { answer: "yes" } });
  });

  it("checks with the agent's schema when the run has none of its own", async () => {
    // The persisted JSON Schema asks for a string; the agent's zod schema, which wins, for a number.
    const verdict = await validate(implementationsOf({ output: answerSchema }), {
      candidate: textCandidate({ answer: "yes" }),
      request: requestOf(z.object({ answer: z.string() })),
    });
    expect(verdict.ok).toBe(false);
  });

  it("a restored run given no schema is checked against its persisted JSON Schema", async () => {
    const implementations = implementationsOf();
    const request = requestOf(z.object({ answer: z.number().int() }));
    expect(
      await validate(implementations, { candidate: textCandidate({ answer: 3 }), request }),
    ).toStrictEqual({
      ok: true,
      value: { answer: 3 },
    });
    const verdict = await validate(implementations, { candidate: textCandidate({ answer: 3.5 }), request });
    expect(verdict.ok).toBe(false);
    expect(verdict.ok === false && verdict.issues[0]?.path).toStrictEqual(["answer"]);
  });

  it("runs async refinements", async () => {
    const schema = z.string().refine(async (value) => value.startsWith("ok"), "must start with ok");
    const implementations = implementationsOf({ output: schema });
    const request = requestOf(z.string());
    expect(await validate(implementations, { candidate: textCandidate("ok then"), request })).toStrictEqual({
      ok: true,
      value: "ok then",
    });
    expect(await validate(implementations, { candidate: textCandidate("nope"), request })).toStrictEqual({
      ok: false,
      issues: [{ path: [], message: "must start with ok" }],
    });
  });

  it("a check that throws is one issue naming the error (the actor does not fail)", async () => {
    const schema = z.string().refine(() => {
      throw new Error("lookup service down");
    });
    const actor = createActor(validateOutputActor(implementationsOf({ output: schema })), {
      input: { candidate: textCandidate("x"), request: requestOf(z.string()) },
    }).start();
    expect(await settledValue(toPromise(actor))).toStrictEqual({
      ok: false,
      issues: [{ path: [], message: "the schema check threw: lookup service down" }],
    });
    expect(actor.getSnapshot().status).toBe("done");
  });

  it("a persisted JSON Schema that cannot be rebuilt is one issue naming the error", async () => {
    const verdict = await validate(implementationsOf(), {
      candidate: textCandidate(1),
      request: { name: "out", schema: { type: "no-such-type" }, strict: false },
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.ok === false && verdict.issues).toHaveLength(1);
    expect(verdict.ok === false && verdict.issues[0]?.message).toMatch(/^the schema check threw: /);
  });
});
