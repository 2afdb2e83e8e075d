#!/usr/bin/env node
import { errorText } from "../types/error-text.js";
import { MissingPeerDependencyError, requireOptionalPeer } from "../types/optional-peer.js";

// A reader that went away (`agentchart --json … | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

/** The command line, once its argument parser (the optional peer `commander`) is known to be there. */
async function loadCli(): Promise<typeof import("./program.js")> {
  requireOptionalPeer("commander", "The agentchart command line");
  return import("./program.js");
}

// Not a top-level await: the REPL lives as long as the process, and a module whose evaluation is
// still pending would leave the whole program inside the module loader.
void loadCli().then(
  ({ runCli }) =>
    runCli(process.argv.slice(2), {
      cwd: process.cwd(),
      env: process.env,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    }).then((code) => {
      process.exitCode = code;
      // The REPL read stdin; an open pipe would keep the process alive after `/quit`.
      process.stdin.destroy();
    }),
  (error: unknown) => {
    const hint =
      error instanceof MissingPeerDependencyError
        ? "\n  installed globally: npm install -g agentchart commander; with npx: npx -p agentchart -p commander agentchart"
        : "";
    process.stderr.write(`agentchart: ${errorText(error)}${hint}\n`);
    process.exitCode = 1;
  },
);
