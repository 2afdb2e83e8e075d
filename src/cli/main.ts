#!/usr/bin/env node
import { runCli } from "./program.js";

// A reader that went away (`agentchart --json … | head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// Not a top-level await: the REPL lives as long as the process, and a module whose evaluation is
// still pending would leave the whole program inside the module loader.
void runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((code) => {
  process.exitCode = code;
  // The REPL read stdin; an open pipe would keep the process alive after `/quit`.
  process.stdin.destroy();
});
