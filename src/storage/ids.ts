import { SessionError } from "../types/session-error.js";

const SESSION_ID_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A fresh session id (a random UUID). */
export function createSessionId(): string {
  return globalThis.crypto.randomUUID();
}

/** Random bytes drawn in bulk: one `getRandomValues` call serves 256 entry ids. */
const randomBytes = new Uint8Array(1024);
let nextByte = randomBytes.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function randomHex8(): string {
  if (nextByte === randomBytes.length) {
    globalThis.crypto.getRandomValues(randomBytes);
    nextByte = 0;
  }
  const at = nextByte;
  nextByte += 4;
  return (
    HEX[randomBytes[at]!]! +
    HEX[randomBytes[at + 1]!]! +
    HEX[randomBytes[at + 2]!]! +
    HEX[randomBytes[at + 3]!]!
  );
}

/**
 * A fresh entry id: 8 random hex characters, retried against `taken` until unique
 * (then widened to a full UUID, which cannot realistically collide).
 */
export function createEntryId(taken: { has(id: string): boolean }): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomHex8();
    if (!taken.has(id)) return id;
  }
  return globalThis.crypto.randomUUID();
}

/** Throws `SessionError("invalid_id")` unless `id` is safe to use in a file name (no separators, no `..`). */
export function assertValidSessionId(id: unknown): asserts id is string {
  if (typeof id !== "string" || id.length > 200 || !SESSION_ID_PATTERN.test(id) || id.includes("..")) {
    throw new SessionError(
      "invalid_id",
      `Invalid session id ${JSON.stringify(id)}: use letters, digits, ".", "_" or "-" (no path separators, no "..").`,
    );
  }
}

/** Throws `SessionError("invalid_id")` unless `cwd` is a non-empty path without NUL bytes or `..` segments. */
export function assertValidCwd(cwd: unknown): asserts cwd is string {
  if (
    typeof cwd !== "string" ||
    cwd.length === 0 ||
    cwd.includes("\0") ||
    cwd.split(/[\\/]/).some((part) => part === "..")
  ) {
    throw new SessionError(
      "invalid_id",
      `Invalid cwd ${JSON.stringify(cwd)}: give a non-empty path without ".." segments or NUL bytes.`,
    );
  }
}
