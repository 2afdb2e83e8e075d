import type { AgentHarness } from "../harness/agent-harness.js";
import { writeRecordingFile } from "../replay/read-recording-file.js";

/**
 * `--record FILE` on a run: the CLI's harness records (`record: true`, into its session too) and,
 * when the run ends, the recording of the last harness attached (a REPL's `/fork` attaches the
 * forked one) is written to the file, replacing it.
 *
 * Contract: `attach` never throws; `write` rejects with the file system's error, and writes nothing
 * when no harness was bound.
 *
 * ```ts
 * import { resolve } from "node:path";
 * const file = new RunRecordingFile(resolve(process.cwd(), "fix.recording.jsonl"));
 * file.attach(harness); // a harness made with `record: true`
 * await harness.prompt("Fix the failing test");
 * await file.write();
 * ```
 */
export class RunRecordingFile {
  readonly path: string;
  #harness: AgentHarness | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** Keeps `harness` as the one whose recording is written; then runs `next` (another attachment). */
  attach(harness: AgentHarness, next?: (harness: AgentHarness) => () => void): () => void {
    this.#harness = harness;
    return next?.(harness) ?? (() => {});
  }

  async write(): Promise<void> {
    const recording = this.#harness?.recording;
    if (recording) await writeRecordingFile(this.path, recording);
  }
}
