import type { ImageContent, TextContent } from "../types/messages.js";
import type { Model } from "../types/model.js";

/** Text sent in place of an image when `model.input` says the model cannot see images. */
export const IMAGE_OMITTED = "(image omitted: this model does not accept images)";

/** True unless the model declares its inputs and images are not among them. */
export function acceptsImages(model: Model): boolean {
  return model.input === undefined || model.input.includes("image");
}

/** The text of a tool result; a result made only of images gets a short placeholder. */
export function toolResultText(content: (TextContent | ImageContent)[]): string {
  const text = content
    .filter((part): part is TextContent => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  if (text !== "") return text;
  return content.some((part) => part.type === "image") ? "(see attached image)" : "";
}
