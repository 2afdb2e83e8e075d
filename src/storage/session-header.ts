import type { SessionHeader } from "./entries.js";

/** A version-3 header written now; metadata is copied so later changes by the caller do not leak in. */
export function createSessionHeader(fields: {
  id: string;
  cwd: string;
  metadata?: Record<string, unknown>;
  parentSession?: string;
  parentToolCallId?: string;
}): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: 3,
    id: fields.id,
    timestamp: new Date().toISOString(),
    cwd: fields.cwd,
  };
  if (fields.parentSession !== undefined) header.parentSession = fields.parentSession;
  if (fields.parentToolCallId !== undefined) header.parentToolCallId = fields.parentToolCallId;
  if (fields.metadata !== undefined) header.metadata = structuredClone(fields.metadata);
  return header;
}
