import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { ScriptedReply } from "../../src/providers/scripted/scripted-reply.js";
import type { LlmContext, StreamFn } from "../../src/types/stream.js";

/** The reply the offline model streams for "story" prompts (long, so a reload lands mid-stream). */
export const STORY =
  "Once upon a time a statechart lived in a browser tab. Every event it heard moved it one step, " +
  "and when the page went away the server kept the story going, so it could tell you the end anyway.";

/** The colours the offline model offers when it asks the page's `pick_colour` tool. */
export const COLOURS = ["teal", "plum", "amber"];

/**
 * The offline model of the web chat: "deploy …" asks to run the `deploy` tool (which needs approval),
 * a prompt mentioning a colour calls the page's `pick_colour` tool (a frontend tool the user answers),
 * "story" streams a long story slowly, anything else gets a short answer. After a tool result it says
 * what happened, quoting the result. `delayMs` paces the deltas.
 */
export function webChatModel(delayMs = 25): StreamFn {
  return (model, context, options) => scriptedModel([replyFor(context, delayMs)])(model, context, options);
}

function replyFor(context: LlmContext, delayMs: number): ScriptedReply {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") {
    const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (last.toolName === "pick_colour")
      return {
        text: last.isError ? `No colour then: ${text}` : `You picked ${text}. Lovely choice!`,
        delayMs,
      };
    return { text: last.isError ? `Not deployed: ${text}` : `Deployed. ${text}`, delayMs };
  }
  const prompt = last?.role === "user" ? (typeof last.content === "string" ? last.content : "") : "";
  if (/deploy/i.test(prompt))
    return {
      text: "I will deploy that for you once you approve.",
      toolCalls: [{ name: "deploy", arguments: { target: "production" } }],
      delayMs,
    };
  if (/colou?r/i.test(prompt))
    return {
      text: "Pick the colour you like.",
      toolCalls: [{ name: "pick_colour", arguments: { choices: COLOURS } }],
      delayMs,
    };
  if (/story/i.test(prompt)) return { text: STORY, deltas: 60, delayMs: delayMs * 2 };
  return { text: `You said: ${prompt}`, delayMs };
}
