import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { JsonlSessionRepo } from "../../src/node.js";

const child = resolve(process.cwd(), "test/support/session-crash-child.ts");

/** Outcome of one crash trial. */
export interface CrashTrial {
  acknowledged: number;
  missing: string[];
  recovered: number;
}

/**
 * Starts a child appending to a session, kills it with SIGKILL `killAfterMs` after its first
 * acknowledgement, then reopens the session and checks that every acknowledged id is present.
 */
export async function runCrashTrial(
  root: string,
  sessionId: string,
  killAfterMs: number,
  durability: "none" | "fsync" = "none",
): Promise<CrashTrial> {
  // `node --import tsx` (not the tsx CLI, which forks a grandchild) so SIGKILL hits the writer itself.
  const proc = spawn(process.execPath, ["--import", "tsx", child, root, sessionId, durability], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const exited = new Promise<void>((done) => proc.once("exit", () => done()));
  await new Promise<void>((started, failed) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      started();
    });
    proc.once("exit", () => failed(new Error(`child exited before appending: ${output}`)));
  });
  await new Promise((wait) => setTimeout(wait, killAfterMs));
  proc.kill("SIGKILL");
  await exited;
  // Only complete lines count as acknowledged: a line cut by the kill was never fully reported.
  const acknowledged = output.split("\n").slice(0, -1);
  const session = await new JsonlSessionRepo({ root }).open(sessionId);
  const missing = acknowledged.filter((id) => session.getEntry(id) === undefined);
  const recovered = session.recovered.length;
  await session.close();
  return { acknowledged: acknowledged.length, missing, recovered };
}
