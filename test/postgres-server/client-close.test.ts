import { describe, expect, it } from "vitest";
import { ProcessDriver, repoRoot, spawnTs } from "../support/cli-process.js";
import { DATABASE_URL_VARIABLE } from "./require-server.js";
import { serverPool } from "./server-pool.js";

const server = serverPool("closing");

/** How long a process that has nothing left to do may take to exit (its runtime shutting down). */
const EXIT_BOUND_MS = 10_000;

describe("client.close()", () => {
  // An open socket (a watch's LISTEN connection) or timer keeps a Node process alive: exiting proves none is left.
  it("ends every watch of the client and their LISTEN connections: the process exits by itself", {
    timeout: 60_000,
  }, async () => {
    const schema = server.schema();
    const driver = new ProcessDriver(
      spawnTs("test/support/client-close-child.ts", [process.env[DATABASE_URL_VARIABLE]!, schema], {
        cwd: repoRoot,
      }),
    );
    await driver.waitFor("CLOSED ");
    let bound: ReturnType<typeof setTimeout> | undefined;
    const exit = await Promise.race([
      driver.exited,
      new Promise<"still running">((resolve) => {
        bound = setTimeout(() => resolve("still running"), EXIT_BOUND_MS);
      }),
    ]);
    clearTimeout(bound);
    if (exit === "still running") driver.child.kill("SIGKILL");
    expect(exit).toBe(0);
    expect(driver.output).toContain("CLOSED 2 completed\n");
  });
});
