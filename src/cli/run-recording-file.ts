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
 * const file = new RunRecordingFile(resolve(cwd, "fix.recording.jsonl"));
 * const cli = await CliHarness.open({ ...options, record: true, attach: (harness) => file.attach(harness) });
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
