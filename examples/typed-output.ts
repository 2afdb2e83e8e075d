/**
 * Typed output and guardrails: a prompt asks for a zod-typed value; the first reply misses a field
 * and is repaired (the model is told zod's issues), the second validates. An output guardrail holds
 * every reply until it passes; the last prompt trips it, and the transcript keeps the replacement.
 *
 *   npx tsx examples/typed-output.ts
 */
import { z } from "zod";
import { Agent, type Guardrail } from "../src/index.js";
import { scriptedModel } from "../src/testing.js";

const Weather = z.object({ city: z.string(), celsius: z.number() });

const noInsults: Guardrail = {
  name: "no-insults",
  check: ({ text }) => ({ tripwire: /idiot/i.test(text), reason: "an insult", replacement: "[removed]" }),
};

const agent = new Agent({
  model: { id: "demo", api: "scripted", provider: "local", contextWindow: 8_000, maxTokens: 1_000 },
  guardrails: { output: [noInsults] },
  streamFn: scriptedModel([
    { text: '{"city":"Lisbon"}' },
    { text: '{"city":"Lisbon","celsius":21.5}' },
    { text: "Only an idiot asks that twice." },
  ]),
});

agent.subscribe((event) => {
  if (event.type === "output_delta") console.log("partial:", JSON.stringify(event.partial));
  if (event.type === "guardrail_tripped")
    console.log(`guardrail ${event.guardrail} tripped: ${event.reason}`);
});

const weather = await agent.prompt("Weather in Lisbon?", { output: Weather });
console.log(`output: ${weather.output?.city} ${weather.output?.celsius} °C (${weather.stopReason})`);
const repair = agent.state.messages.find((m) => m.role === "user" && String(m.content).includes("schema"));
console.log(`repair asked: ${repair?.role === "user" ? String(repair.content) : "none"}`);

const rude = await agent.prompt("And again?");
const last = agent.state.messages.at(-1);
console.log(
  `stopReason: ${rude.stopReason}; kept: ${last?.role === "assistant" ? JSON.stringify(last.content) : ""}`,
);
