import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { runCli } from "../../src/cli/program.js";
import { replaySession } from "../../src/harness/replay-session.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import { writeRecordingFile } from "../../src/replay/read-recording-file.js";
import { Recording } from "../../src/replay/recording.js";
import { parseSessionText } from "../../src/storage/session-file.js";
import { deleteTool, weatherTool } from "../replay/support.js";
import { type CliSandbox, createCliSandbox } from "../support/cli-process.js";
import { testModel } from "../support/loop-harness.js";

vi.setConfig({ testTimeout: 60_000 });

let sandbox: CliSandbox;
beforeEach(() => {
  sandbox = createCliSandbox();
});
afterEach(() => sandbox.cleanup());

/** Runs the CLI in this process, in the sandbox, and returns its exit code and output. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const io = { cwd: sandbox.cwd, env: sandbox.env, stdin: new PassThrough(), stdout, stderr };
  const code = await runCli([...args, "--sessions-dir", sandbox.sessionsDir], io);
  return { code, stdout: out, stderr: err };
}

/** The session files of the sandbox. */
function sessionFiles(): string[] {
  return readdirSync(sandbox.sessionsDir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(sandbox.sessionsDir, name));
}

describe("agentchart --record FILE, then agentchart replay FILE", () => {
  it("replays the offline run with no side effects and prints it as the run printed it", async () => {
    const run = await cli("--record", "run.recording.jsonl", "what is in here?");
    expect(run.code).toBe(0);
    const recording = Recording.fromJSONL(readFileSync(join(sandbox.cwd, "run.recording.jsonl"), "utf8"));
    expect(recording.source).toBe("harness");
    expect(recording.toolCalls.map((call) => call.toolName)).toEqual(["ls"]);

    // The folder changes after the recording: recorded tools do not see it, live ones do.
    writeFileSync(join(sandbox.cwd, "later.txt"), "new\n");
    const replayed = await cli("replay", "run.recording.jsonl", "--verify");
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('⚙ ls {"path":"."}');
    expect(replayed.stdout).toContain("This folder holds 3 entries: notes.txt, README.md, src/.");
    expect(replayed.stderr).toContain("replayed 2 model calls, 1 tool calls");
    expect(replayed.stderr).toContain("identical to the recording");

    const verified = await cli("replay", "run.recording.jsonl", "--verify", "--tools", "verify");
    expect(verified.code).toBe(1);
    expect(verified.stderr).toMatch(
      /Replay diverged at step \d+ \(line \d+\) of the root agent: the tool's result differs/,
    );
    // Without --verify the divergence is printed, and the replay exits 0.
    const watched = await cli("replay", "run.recording.jsonl", "--tools", "verify");
    expect(watched.code).toBe(0);
    expect(watched.stderr).toContain("Replay diverged");
  });

  it("replays a session file a recorded run kept its recording in, and forks the session at a recorded step", async () => {
    // Recorded outside the folder, so the live ls of the replay lists what the recorded one did.
    expect((await cli("--record", "../run.recording.jsonl", "what is in here?")).code).toBe(0);
    const [file] = sessionFiles();
    const fromSession = await cli("replay", file!, "--verify", "--tools", "live");
    expect(fromSession.code).toBe(0);
    expect(fromSession.stdout).toContain("This folder holds 3 entries");
    expect(fromSession.stderr).toContain("identical to the recording");

    const session = parseSessionText(readFileSync(file!, "utf8"));
    const id = session.header.id;
    const steps = replaySession(session.tree).recording.steps;
    const settled = steps.find((step) => step.step === "tools_settled")!;
    const forked = await cli("sessions", "fork", id, "--at", String(settled.index));
    expect(forked.code).toBe(0);
    const forkId = forked.stdout.trim();
    const forkFile = sessionFiles().find((path) => path.includes(forkId))!;
    const fork = parseSessionText(readFileSync(forkFile, "utf8"));
    expect(fork.header.parentSession).toBeDefined();
    const atStep = replaySession(fork.tree);
    expect(atStep.step?.index).toBe(settled.index);
    expect(JSON.parse(JSON.stringify(atStep.snapshot))).toEqual(JSON.parse(JSON.stringify(settled.snapshot)));
    // The old session stays as it was.
    expect(replaySession(parseSessionText(readFileSync(file!, "utf8")).tree).step?.index).toBe(
      steps.at(-1)!.index,
    );

    const missing = await cli("sessions", "fork", id, "--at", "99");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `the session has no recorded step 99 (its steps are 0 to ${steps.length - 1})`,
    );
    const notAnEntry = await cli("sessions", "fork", id, "--at", "zz");
    expect(notAnEntry.code).toBe(1);
    expect(notAnEntry.stderr).toContain('Cannot fork at entry "zz"');
  });
});

describe("agentchart replay: the code under test", () => {
  async function recordWeatherRun(path: string): Promise<void> {
    const agent = new Agent({
      model: testModel,
      systemPrompt: "You forecast.",
      streamFn: scriptedModel([
        {
          toolCalls: [
            { id: "call_w", name: "weather", arguments: { city: "Oslo" } },
            { id: "call_d", name: "delete_file", arguments: { path: "/tmp/old" } },
          ],
        },
        { text: "Oslo: 21°C; I did not delete it." },
      ]),
      tools: [weatherTool().tool, deleteTool],
      record: true,
    });
    agent.subscribe((event) => {
      if (event.type === "tool_approval_request")
        queueMicrotask(() => agent.denyToolCall(event.toolCallId, "no"));
    });
    await agent.prompt("Weather in Oslo, and delete /tmp/old");
    await writeRecordingFile(path, agent.recording!);
  }

  it("rebuilds recorded tools from their specs (approvals answered as recorded); live tools must exist", async () => {
    const path = join(sandbox.cwd, "weather.recording.jsonl");
    await recordWeatherRun(path);
    const recorded = await cli("replay", "weather.recording.jsonl", "--verify");
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toContain("Oslo: 21°C; I did not delete it.");
    expect(recorded.stderr).toContain("identical to the recording");

    const live = await cli("replay", "weather.recording.jsonl", "--tools", "live");
    expect(live.code).toBe(1);
    expect(live.stderr).toContain(
      'the recording calls tool "weather", which agentchart has no built-in tool for (it has read, write, edit, bash, ls); replay it with --tools recorded',
    );
    expect(live.stdout).toBe("");
  });

  it("names the file and line of a bad recording, and refuses a recording with no model call", async () => {
    const path = join(sandbox.cwd, "bad.recording.jsonl");
    await recordWeatherRun(path);
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, `${lines.slice(0, 3).join("\n")}\n${lines[3]!.slice(0, 20)}\n`);
    const truncated = await cli("replay", "bad.recording.jsonl");
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toContain(
      "bad.recording.jsonl: line 4: not JSON (a truncated or hand-edited recording?)",
    );

    writeFileSync(path, `${lines[0]}\n`);
    const empty = await cli("replay", "bad.recording.jsonl");
    expect(empty.stderr).toContain(
      "bad.recording.jsonl: the recording holds no model call; there is nothing to replay",
    );
    const absent = await cli("replay", "absent.recording.jsonl");
    expect(absent.stderr).toContain("cannot read absent.recording.jsonl");
    const mode = await cli("replay", "bad.recording.jsonl", "--tools", "sometimes");
    expect(mode.code).toBe(2);
  });
});
