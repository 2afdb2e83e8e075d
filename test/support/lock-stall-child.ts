// Takes a session's lock and stops for good right after staging it (folder and owner entry made, not
// yet renamed into place), printing "staged <path>" — the parent then kills it with SIGKILL there.
// Usage: node --import tsx lock-stall-child.ts <session file path>
import { writeSync } from "node:fs";
import { acquireLock } from "../../src/storage/file-lock.js";

const [sessionPath] = process.argv.slice(2);
acquireLock(sessionPath!, "stalled", {
  staged(stagingPath) {
    writeSync(1, `staged ${stagingPath}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // blocks this thread forever
  },
});
