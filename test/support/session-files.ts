import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "../../src/index.js";

/** Folder of the project's read-only fixtures (test/fixtures; see its README for where each came from). */
export const fixturesDir = resolve(import.meta.dirname, "../fixtures");

/** A fresh temp folder and a function that removes it. */
export function tempRoot(prefix: string): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A user message with the given text. */
export function userMessage(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}
