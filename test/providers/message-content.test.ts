import { describe, expect, it } from "vitest";
import { acceptsImages, IMAGE_OMITTED, toolResultText } from "../../src/providers/message-content.js";
import type { ImageContent, TextContent } from "../../src/types/messages.js";
import type { Model } from "../../src/types/model.js";

const model = (input?: Model["input"]) =>
  ({ id: "m", provider: "p", api: "openai-completions", input }) as Model;
const text = (value: string): TextContent => ({ type: "text", text: value });
const image: ImageContent = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };

describe("acceptsImages", () => {
  it("is true for a model that does not declare its inputs, or declares images", () => {
    expect(acceptsImages(model())).toBe(true);
    expect(acceptsImages(model(["text", "image"]))).toBe(true);
  });

  it("is false for a model whose declared inputs leave images out", () => {
    expect(acceptsImages(model(["text"]))).toBe(false);
  });

  it("has a placeholder that says why the image is missing", () => {
    expect(IMAGE_OMITTED).toBe("(image omitted: this model does not accept images)");
  });
});

describe("toolResultText", () => {
  it("joins the text parts with line breaks, leaving the images out", () => {
    expect(toolResultText([text("first"), image, text("second")])).toBe("first\nsecond");
  });

  it("points at the image when a result has images and no text", () => {
    expect(toolResultText([image])).toBe("(see attached image)");
    expect(toolResultText([text(""), image])).toBe("(see attached image)");
  });

  it("is empty for a result with neither text nor images", () => {
    expect(toolResultText([])).toBe("");
    expect(toolResultText([text("")])).toBe("");
  });
});
