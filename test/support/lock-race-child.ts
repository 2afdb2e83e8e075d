// Races other processes for one session's lock, on command from stdin:
//   "go <epoch ms>" — spin until that instant, open the session, print "won" (keeping it open) or "locked";
//   "close"         — close the session if this process won it, print "closed".
// Prints "ready" once loaded. Usage: node --import tsx lock-race-child.ts <root> <sessionId>
import { createInterface } from "node:readline";
import { JsonlSessionRepo } from "../../src/storage/jsonl-session-repo.js";
// Imports the repo's own module, not the package entry, so that eight children start quickly.
import type { Session } from "../../src/storage/session.js";
import { isSessionError } from "../../src/types/session-error.js";

const [root, sessionId] = process.argv.slice(2);
const repo = new JsonlSessionRepo({ root: root! });
let session: Session | undefined;
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [command, at] = line.split(" ");
  if (command === "go") {
    while (Date.now() < Number(at)) {
      // spin: every child starts its attempt at the same instant
    }
    try {
      session = await repo.open(sessionId!);
      process.stdout.write("won\n");
    } catch (error) {
      process.stdout.write(isSessionError(error, "locked") ? "locked\n" : `error ${String(error)}\n`);
    }
  } else if (command === "close") {
    await session?.close();
    session = undefined;
    process.stdout.write("closed\n");
  }
}
