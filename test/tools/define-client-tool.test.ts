import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineClientTool } from "../../src/index.js";

const parameters = z.object({ choices: z.array(z.string()) });

describe("defineClientTool", () => {
  it("is a tool the client answers, with the definition's fields and JSON Schema", () => {
    const prepareArguments = (raw: unknown) => raw;
    const tool = defineClientTool({
      name: "pick_colour",
      label: "Pick",
      description: "Asks the user to pick a colour",
      parameters,
      requiresApproval: true,
      prepareArguments,
    });
    expect(tool).toMatchObject({
      name: "pick_colour",
      label: "Pick",
      description: "Asks the user to pick a colour",
      client: true,
      requiresApproval: true,
    });
    expect(tool.prepareArguments).toBe(prepareArguments);
    expect(tool.jsonSchema).toMatchObject({ type: "object", required: ["choices"] });
  });

  it("rejects a direct execute() with an error that says the client answers", async () => {
    const tool = defineClientTool({ name: "pick_colour", description: "d", parameters });
    await expect(tool.execute({ choices: [] }, {} as never)).rejects.toThrow(
      "Tool pick_colour runs on the client; answer its calls with answerToolCall",
    );
  });

  it("refuses a name the OpenAI API would reject", () => {
    expect(() => defineClientTool({ name: "pick colour", description: "d", parameters })).toThrow(TypeError);
  });
});
