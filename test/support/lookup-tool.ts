import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";

/** A `lookup` tool that says every word is a greeting: the evals tests' one tool. */
export const lookupTool = defineTool({
  name: "lookup",
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => ({ content: [{ type: "text", text: `${word}: a greeting` }] }),
});
