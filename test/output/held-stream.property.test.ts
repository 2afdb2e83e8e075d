import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import type { Guardrail } from "../../src/types/guardrail.js";
import { echoTool, testModel } from "../support/loop-harness.js";

// For random scripts (text replies and tool-calling replies, streamed in random numbers of deltas)
// and a random reply that trips the output guardrail: no listener ever receives a text delta of the
// tripped reply, the transcript never holds its text, and every reply before it is released whole.

const replyArb = fc.record({
  words: fc.array(fc.constantFrom("alpha", "beta", "gamma", "delta"), { minLength: 1, maxLength: 6 }),
  callsTool: fc.boolean(),
  deltas: fc.integer({ min: 1, max: 8 }),
});

describe("held streaming (property)", () => {
  it("never releases a text delta of a tripped reply", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(replyArb, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        async (replies, tripSeed, asyncCheck) => {
          const tripAt = tripSeed % replies.length;
          const marker = (index: number) => `R${index}X`;
          const callsTool = replies.map((reply, index) => reply.callsTool && index < replies.length - 1);
          const script: ScriptedReply[] = replies.map((reply, index) => ({
            text: `${marker(index)} ${reply.words.join(" ")}`,
            deltas: reply.deltas,
            ...(callsTool[index] ? { toolCalls: [{ name: "echo", arguments: { text: "t" } }] } : {}),
          }));
          const trips: Guardrail = {
            name: "trip",
            check: ({ text }) => {
              const verdict = { tripwire: text.startsWith(marker(tripAt)) };
              return asyncCheck ? Promise.resolve(verdict) : verdict;
            },
          };
          const agent = new Agent({
            model: testModel,
            streamFn: scriptedModel(script),
            tools: [echoTool()],
            guardrails: { output: [trips] },
          });
          const deltas: string[] = [];
          agent.subscribe((event) => {
            if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
              deltas.push(event.assistantMessageEvent.delta);
          });
          const result = await agent.prompt("go");
          const released = deltas.join("");
          const transcript = JSON.stringify(agent.state.messages);
          // The run reaches the tripping reply only if every earlier reply called a tool.
          const reached = callsTool.slice(0, tripAt).every(Boolean);
          if (reached) {
            expect(result.stopReason).toBe("guardrail");
            expect(released).not.toContain(marker(tripAt));
            expect(transcript).not.toContain(marker(tripAt));
          }
          const last = reached ? tripAt : callsTool.indexOf(false) + 1;
          for (let index = 0; index < last; index++) {
            expect(released).toContain(`${marker(index)} ${replies[index]!.words.join(" ")}`);
          }
          expect(agent.actor.getSnapshot().value).toBe("idle");
        },
      ),
      { numRuns: 150 },
    );
  });
});
