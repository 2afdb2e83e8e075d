import type { AgUiTool } from "../../src/ag-ui/ag-ui-events.js";
import type { ScriptedTurn } from "../../src/providers/scripted/scripted-model.js";
import type { LlmContext } from "../../src/types/stream.js";
import { texts } from "./harness-support.js";

// The frontend tool of the AG-UI and client-store tests: the page asks the user to pick a colour.

/** The frontend tool the page declares: it asks the user to pick a colour. */
export const pickColour: AgUiTool = {
  name: "pick_colour",
  description: "Asks the user to pick a colour",
  parameters: {
    type: "object",
    properties: { choices: { type: "array", items: { type: "string" } } },
    required: ["choices"],
  },
};

/** The text of the last tool result the model was given (to prove the answer reached it). */
export const lastResult = (context: LlmContext) =>
  texts(context.messages.filter((message) => message.role === "toolResult")).at(-1);

/** A model that calls pick_colour, then says what the user picked. */
export const colourScript = (): ScriptedTurn[] => [
  {
    text: "Let me ask.",
    toolCalls: [{ id: "call_c", name: "pick_colour", arguments: { choices: ["teal", "plum"] } }],
  },
  (context) => ({ text: `You picked ${lastResult(context)}.` }),
];
