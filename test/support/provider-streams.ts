import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ScriptedReply, splitAwkwardly } from "./openai-server.js";

const folder = fileURLToPath(new URL("../fixtures/provider-streams/", import.meta.url));

/**
 * The body of a recorded stream (`test/fixtures/provider-streams/`, sources in the fixtures README),
 * exactly as the server sent it. `.chunks.txt` recordings hold one JSON payload per line (the
 * vercel/ai format); they are framed as `data: …` events followed by `data: [DONE]`.
 */
export function recordedBody(name: string): string {
  const text = readFileSync(folder + name, "utf8");
  if (!name.endsWith(".chunks.txt")) return text;
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return `${lines.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`;
}

/** How a recorded body is written: in one piece, or cut into small writes at awkward byte offsets. */
export type Delivery = "whole" | "small writes";
export const deliveries: Delivery[] = ["whole", "small writes"];

/** A scripted reply that replays a recorded body byte for byte. */
export function recordedReply(
  name: string,
  delivery: Delivery,
  headers: Record<string, string> = {},
): ScriptedReply {
  const body = recordedBody(name);
  const pieces = delivery === "whole" ? [body] : splitAwkwardly(body, [5, 1, 3, 17, 2]);
  return { kind: "stream", pieces, headers };
}
