import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { JsonlSessionRepo } from "../../src/node.js";
import { type CliSandbox, createCliSandbox, runTs } from "../support/cli-process.js";
import { userMessage } from "../support/session-files.js";

// Every case starts the CLI as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

let sandbox: CliSandbox;
beforeEach(() => {
  sandbox = createCliSandbox();
});
afterEach(() => sandbox.cleanup());

const cli = (...args: string[]) =>
  runTs("src/cli/main.ts", [...args, "--sessions-dir", sandbox.sessionsDir], {
    cwd: sandbox.cwd,
    env: sandbox.env,
  });

describe("a hand-edited session file in the CLI", () => {
  it("sessions show and --session name the malformed line instead of failing with a TypeError", async () => {
    const repo = new JsonlSessionRepo({ root: sandbox.sessionsDir });
    const session = await repo.create({ id: "edited", cwd: sandbox.cwd });
    await session.appendMessage(userMessage("first"));
    await session.appendMessage(userMessage("second"));
    await session.close();
    const lines = readFileSync(session.path!, "utf8").split("\n");
    const entry = JSON.parse(lines[2]!);
    lines[2] = JSON.stringify({ ...entry, message: { ...entry.message, content: 12345 } });
    writeFileSync(session.path!, lines.join("\n"));

    for (const args of [
      ["sessions", "show", "edited"],
      ["--session", "edited", "hi"],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(
        "line 3: message.content: expected a string or an array of text/image parts",
      );
      expect(result.stderr).not.toMatch(/TypeError|is not a function/);
    }
  });
});
