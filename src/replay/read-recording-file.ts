import { readFile, writeFile } from "node:fs/promises";
import { Recording } from "./recording.js";
import { RecordingError } from "./recording-format.js";

/**
 * Reads a recording file (`*.recording.jsonl`, written by `writeRecordingFile` or `toJSONL()`).
 *
 * Contract: rejects with the file system's error for a file that cannot be read, and with
 * `RecordingError` (its message naming the file and the line) for one that is not a recording of
 * this format version; nothing is loaded then.
 *
 * ```ts
 * import type { PersistedAgent } from "agentchart";
 * const recording = await readRecordingFile<PersistedAgent>("runs/refund.recording.jsonl");
 * ```
 */
export async function readRecordingFile<TSnapshot = unknown>(path: string): Promise<Recording<TSnapshot>> {
  const text = await readFile(path, "utf8");
  try {
    return Recording.fromJSONL<TSnapshot>(text);
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    throw new RecordingError(error.code, error.detail, error.line, path);
  }
}

/**
 * Writes `recording` to `path` as JSONL (its header first), replacing the file.
 *
 * Contract: rejects with the file system's error; the text is `recording.toJSONL()`.
 *
 * ```ts
 * await writeRecordingFile("runs/refund.recording.jsonl", agent.recording!);
 * ```
 */
export async function writeRecordingFile(path: string, recording: Recording): Promise<void> {
  await writeFile(path, recording.toJSONL(), "utf8");
}
