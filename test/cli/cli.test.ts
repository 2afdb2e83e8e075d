import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { REPL_PROMPT } from "../../src/cli/repl.js";
import type { AgentEvent } from "../../src/index.js";
import { type CliSandbox, createCliSandbox, ProcessDriver, runTs, spawnTs } from "../support/cli-process.js";
import { chunk, usageChunk } from "../support/openai-fixtures.js";
import { OpenAITestServer, streamReply } from "../support/openai-server.js";

// Every case starts the CLI as a child process (tsx transpiles on start): generous timeouts under load.
vi.setConfig({ testTimeout: 90_000 });

const MAIN = "src/cli/main.ts";
let sandbox: CliSandbox;

beforeEach(() => {
  sandbox = createCliSandbox();
});
afterEach(() => sandbox.cleanup());

const cli = (...args: string[]) =>
  runTs(MAIN, [...args, "--sessions-dir", sandbox.sessionsDir], { cwd: sandbox.cwd, env: sandbox.env });

async function onlySessionId(): Promise<string> {
  const listed = await cli("sessions", "list");
  const ids = listed.stdout
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/)[0]);
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}

describe("one-shot prompt", () => {
  it("streams the offline model's answer, lists the folder with the ls tool and exits 0", async () => {
    const result = await cli("what is in here?");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("offline: scripted model");
    expect(result.stdout).toContain('⚙ ls {"path":"."}');
    expect(result.stdout).toContain("✓ ls");
    expect(result.stdout).toContain(
      'You asked: "what is in here?". This folder holds 3 entries: notes.txt, README.md, src/.',
    );
  });

  it("runs a command with bash and reports its failure as a tool error, not a crash", async () => {
    const result = await cli("--no-session", "--yes", "run echo out; exit 3");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("✗ bash");
    expect(result.stdout).toContain("Command exited with code 3");
    expect(result.stderr).not.toContain("session ");
  });

  it("--json prints one event per line, starting with agent_start and ending with agent_end", async () => {
    const result = await cli("--json", "hello");
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as AgentEvent);
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
    const types = events.map((event) => event.type);
    expect(types).toContain("tool_execution_start");
    expect(types.filter((type) => type === "turn_end")).toHaveLength(2);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.map((message) => (message as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });
});

describe("sessions", () => {
  it("persists the one-shot run and lists, shows and draws it", async () => {
    await cli("first question");
    const id = await onlySessionId();

    const shown = await cli("sessions", "show", id.slice(0, 8));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session ${id}`);
    expect(shown.stdout).toContain("── user\nfirst question");
    expect(shown.stdout).toContain('→ ls {"path":"."}');
    expect(shown.stdout).toContain("── tool result ls (3 lines)");
    expect(shown.stdout).toContain("· model agentchart/offline");
    expect(shown.stdout).not.toContain("agentchart.tool_call");

    const tree = await cli("sessions", "tree", id);
    expect(tree.code).toBe(0);
    const lines = tree.stdout.trim().split("\n");
    // model change, user, assistant, tool result, assistant: the tool journal's entry is left out
    expect(lines).toHaveLength(5);
    expect(tree.stdout).not.toContain("agentchart.tool_call");
    expect(lines.at(-1)).toMatch(/assistant: You asked: "first question".*<- leaf$/);
  });

  it("lists each session with its message count and its name or first prompt, one line each", {
    timeout: 180_000,
  }, async () => {
    await cli("first question");
    await cli("--continue", "second question");
    await cli("a newer session");
    const listed = await cli("sessions", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout.endsWith("\n")).toBe(true);
    const lines = listed.stdout.slice(0, -1).split("\n");
    expect(lines).toHaveLength(2);
    // Newest first: the last session has one prompt (4 messages), the continued one two (8).
    expect(lines[0]).toMatch(
      /^\S+ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {3,}4 messages {2}"a newer session" {2}/,
    );
    expect(lines[1]).toMatch(/ {3,}8 messages {2}"first question" {2}/);
    expect(lines[1]).toContain(sandbox.cwd);
  });

  it("forks at an entry, draws the fork's branch, and deletes sessions", async () => {
    await cli("first question");
    const id = await onlySessionId();
    const tree = await cli("sessions", "tree", id);
    const userEntry = /^(\w{8}) user: first question/m.exec(tree.stdout)?.[1] as string;

    const forked = await cli("sessions", "fork", id, "--at", userEntry);
    expect(forked.code).toBe(0);
    const forkId = forked.stdout.trim();
    expect(forkId).not.toBe(id);
    const forkTree = await cli("sessions", "tree", forkId);
    expect(forkTree.stdout.trim().split("\n")).toHaveLength(2);
    expect(forkTree.stdout).toMatch(/user: first question <- leaf/);
    const forkShown = await cli("sessions", "show", forkId);
    expect(forkShown.stdout).toContain("forked from");

    const deleted = await cli("sessions", "delete", forkId);
    expect(deleted.stdout.trim()).toBe(`deleted ${forkId}`);
    expect((await cli("sessions", "list")).stdout).not.toContain(forkId);
    const gone = await cli("sessions", "show", forkId);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`agentchart: no session "${forkId}"`);
  });

  it("--continue continues the latest session: the model sees the earlier messages", async () => {
    await cli("first question");
    const second = await cli("--continue", "second question");
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("continuing session");
    expect(second.stdout).toContain('Earlier in this conversation you asked: "first question".');
    const id = await onlySessionId();
    const third = await cli("--session", id.slice(0, 6), "third question");
    expect(third.stdout).toContain('you asked: "first question", "second question".');
  });
});

describe("bad input", () => {
  it("rejects an unknown flag with exit code 2", async () => {
    const result = await cli("--bogus");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--bogus'");
  });

  it("rejects an unknown thinking level", async () => {
    const result = await cli("--thinking", "huge", "hi");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are off, minimal, low, medium, high, xhigh");
  });

  it("reports an unknown session id for --session, show, tree, fork and delete", async () => {
    for (const args of [
      ["--session", "nope", "hi"],
      ["sessions", "show", "nope"],
      ["sessions", "tree", "nope"],
      ["sessions", "fork", "nope"],
      ["sessions", "delete", "nope"],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain('agentchart: no session "nope"');
    }
  });

  it("reports a fork at a missing entry, --json without a prompt, and conflicting session flags", async () => {
    await cli("first question");
    const id = await onlySessionId();
    const badEntry = await cli("sessions", "fork", id, "--at", "ffffffff");
    expect(badEntry.code).toBe(1);
    expect(badEntry.stderr).toContain('Cannot fork at entry "ffffffff"');
    const json = await cli("--json");
    expect(json.code).toBe(2);
    expect(json.stderr).toContain("--json needs a prompt");
    const conflict = await cli("--continue", "--no-session", "hi");
    expect(conflict.code).toBe(2);
  });
});

describe("REPL", () => {
  const startRepl = (...args: string[]) =>
    new ProcessDriver(
      spawnTs(MAIN, [...args, "--sessions-dir", sandbox.sessionsDir], { cwd: sandbox.cwd, env: sandbox.env }),
    );

  it("answers prompts, runs slash commands and quits", async () => {
    const repl = startRepl();
    const banner = await repl.waitFor(REPL_PROMPT);
    expect(repl.output.slice(0, banner)).toContain("offline: scripted model");

    const answer = await repl.send("hello there", REPL_PROMPT);
    expect(answer).toContain('You asked: "hello there". This folder holds 3 entries');
    const again = await repl.send("and again", REPL_PROMPT);
    expect(again).toContain('Earlier in this conversation you asked: "hello there".');

    const tree = await repl.send("/tree", REPL_PROMPT);
    expect(tree).toContain("user: hello there");
    expect(tree).toMatch(/<- leaf\n$/);
    const againEntry = /^(\w{8}) user: and again/m.exec(tree)?.[1] as string;

    expect(await repl.send("/model other-model", REPL_PROMPT)).toContain("model agentchart/other-model");
    expect(await repl.send("/thinking high", REPL_PROMPT)).toContain("thinking high");
    expect(await repl.send("/thinking loud", REPL_PROMPT)).toContain('unknown thinking level "loud"');
    expect(await repl.send("/nope", REPL_PROMPT)).toContain("unknown command /nope");

    // Back to before "and again": the prompt is handed back, the next one continues from there.
    const moved = await repl.send(`/tree ${againEntry}`, REPL_PROMPT);
    expect(moved).toMatch(/now at \w{8} \(4 messages\)\nthat entry was your prompt: and again\n/);
    const instead = await repl.send("instead", REPL_PROMPT);
    expect(instead).toContain('You asked: "instead".');
    expect(instead).toContain('Earlier in this conversation you asked: "hello there".');
    const branches = await repl.send("/tree", REPL_PROMPT);
    expect(branches).toMatch(/\+-- \w{8} user: and again/);
    expect(branches).toMatch(/`-- \w{8} user: instead/);

    const forked = await repl.send("/fork", REPL_PROMPT);
    expect(forked).toMatch(/forked: now in session [\w-]+ \(8 messages\)/);

    repl.child.stdin.write("/quit\n");
    expect(await repl.exited).toBe(0);
    const listed = await cli("sessions", "list");
    expect(listed.stdout.trim().split("\n")).toHaveLength(2);
  });

  it("lists skills and prompt templates and sends a template with its arguments", async () => {
    mkdirSync(join(sandbox.cwd, ".agentchart", "skills", "greet"), { recursive: true });
    writeFileSync(
      join(sandbox.cwd, ".agentchart", "skills", "greet", "SKILL.md"),
      "---\nname: greet\ndescription: Greets people politely\n---\nSay hello.\n",
    );
    mkdirSync(join(sandbox.cwd, ".agentchart", "prompts"), { recursive: true });
    writeFileSync(
      join(sandbox.cwd, ".agentchart", "prompts", "look.md"),
      "---\ndescription: Looks at a file\n---\nread $1\n",
    );
    const repl = startRepl("--no-session");
    await repl.waitFor(REPL_PROMPT);
    expect(await repl.send("/skills", REPL_PROMPT)).toContain("greet  Greets people politely");
    expect(await repl.send("/templates", REPL_PROMPT)).toContain("/look  Looks at a file");
    const read = await repl.send("/look notes.txt", REPL_PROMPT);
    expect(read).toContain('⚙ read {"path":"notes.txt"}');
    expect(read).toContain("alpha\nbeta");
    repl.child.stdin.end();
    expect(await repl.exited).toBe(0);
  });

  it("/compact summarises offline; show renders the summary; --continue continues from it", async () => {
    const repl = startRepl();
    await repl.waitFor(REPL_PROMPT);
    await repl.send("first question", REPL_PROMPT);
    await repl.send("second question", REPL_PROMPT);
    const compacted = await repl.send("/compact keep the folder names", REPL_PROMPT);
    expect(compacted).toMatch(
      /compacting…\ncompacted \(\d+ tokens before\); the summary begins:\n {2}## Goal\n {2}- first question\n {2}## Constraints & Preferences\n {2}- keep the folder names\n/,
    );
    const tree = await repl.send("/tree", REPL_PROMPT);
    expect(tree).toMatch(/\w{8} compaction \(\d+ tokens before\) <- leaf\n$/);
    expect(await repl.send("/compact", REPL_PROMPT)).toContain("not compacted: Nothing to compact");
    repl.child.stdin.write("/quit\n");
    expect(await repl.exited).toBe(0);

    const id = await onlySessionId();
    const files = readdirSync(sandbox.sessionsDir, { recursive: true, encoding: "utf8" });
    const path = files.find((name) => name.endsWith(".jsonl")) as string;
    const file = readFileSync(join(sandbox.sessionsDir, path), "utf8");
    const compaction = file
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; summary?: string })
      .filter((entry) => entry.type === "compaction");
    expect(compaction).toHaveLength(1);
    expect(compaction[0]?.summary).toContain('- [x] ls(path=".")');

    const shown = await cli("sessions", "show", id);
    expect(shown.stdout).toMatch(/── compaction \(\d+ tokens before\)\n## Goal\n- first question\n/);
    expect(shown.stdout).toContain("**Turn Context (split turn):**");
    expect(shown.stdout).toContain("- second question");

    // The model now gets the summary and the kept reply, not the summarised prompts.
    const next = await cli("--continue", "third question");
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('You asked: "third question".');
    expect(next.stdout).toContain(
      'The summary of earlier work lists: "first question", "second question". You asked nothing else since that summary.',
    );
    expect(next.stdout).not.toContain("Earlier in this conversation");
  });

  it("/skill:<name> runs a skill from .agentchart/skills or --skills, with extra instructions", async () => {
    const skill = (root: string, name: string, body: string) => {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(
        join(root, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}\n`,
      );
    };
    skill(join(sandbox.cwd, ".agentchart", "skills"), "notes", "read notes.txt");
    skill(join(sandbox.cwd, "more-skills"), "shout", "run echo LOUD");
    const repl = startRepl("--yes", "--skills", "more-skills");
    await repl.waitFor(REPL_PROMPT);
    expect(await repl.send("/skills", REPL_PROMPT)).toMatch(
      /notes {2}The notes skill\nshout {2}The shout skill/,
    );

    const notes = await repl.send("/skill:notes", REPL_PROMPT);
    expect(notes).toContain('⚙ read {"path":"notes.txt"}');
    expect(notes).toContain('Using the skill "notes". You asked: "read notes.txt".');
    expect(notes).toContain("alpha\nbeta");
    const extra = await repl.send("/skill:notes run echo instead", REPL_PROMPT);
    expect(extra).toContain('⚙ bash {"command":"echo instead"}');
    expect(extra).toContain('Using the skill "notes". You asked: "run echo instead".');
    expect(await repl.send("/skill:shout", REPL_PROMPT)).toContain("LOUD");
    expect(await repl.send("/skill:nope", REPL_PROMPT)).toContain("error: Unknown skill: nope");
    repl.child.stdin.end();
    expect(await repl.exited).toBe(0);

    // The skill's content went to the model in a <skill> block, and the session recorded it.
    const shown = await cli("sessions", "show", await onlySessionId());
    expect(shown.stdout).toMatch(/── user\n<skill name="notes" location="[^"]+SKILL\.md">\n/);
  });

  it("Ctrl-C aborts the running turn and keeps the REPL; a second Ctrl-C exits", async () => {
    const repl = startRepl("--yes");
    await repl.waitFor(REPL_PROMPT);
    const from = repl.output.length;
    repl.child.stdin.write("run sleep 30\n");
    await repl.waitFor('⚙ bash {"command":"sleep 30"}', from);
    repl.child.kill("SIGINT");
    const end = await repl.waitFor(REPL_PROMPT, from);
    const turn = repl.output.slice(from, end);
    expect(turn).toContain("✗ bash");
    expect(turn).toContain("aborting the turn");
    const next = await repl.send("still here?", REPL_PROMPT);
    expect(next).toContain('You asked: "still here?"');

    const idle = repl.output.length;
    repl.child.kill("SIGINT");
    await repl.waitFor("Ctrl-C again exits", idle);
    repl.child.kill("SIGINT");
    expect(await repl.exited).toBe(130);
  });
});

describe("inspector", () => {
  it("`inspect` serves the inspector; `--inspect=url` streams the agent's actors to it", async () => {
    const server = new ProcessDriver(
      spawnTs(MAIN, ["inspect", "--port", "0"], { cwd: sandbox.cwd, env: sandbox.env }),
    );
    const urlEnd = await server.waitFor("/\n");
    const url = server.output.slice(0, urlEnd).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const socket = new WebSocket(`${url.replace("http", "ws")}ws`);
    const actorIds: string[] = [];
    const sawToolCallChild = new Promise<void>((resolve) => {
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as {
          records: { kind?: string; type?: string; actorId?: string }[];
        };
        for (const record of message.records) if (record.actorId) actorIds.push(record.actorId);
        if (actorIds.some((id) => id.startsWith("call_"))) resolve();
      });
    });
    await new Promise((resolve) => socket.once("open", resolve));

    const run = await cli(`--inspect=${url}`, "--no-session", "look around");
    expect(run.code).toBe(0);
    await sawToolCallChild;
    socket.close();

    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });
});

describe("online", () => {
  it("talks to an OpenAI-compatible server given by OPENAI_BASE_URL, with the built-in tools", async () => {
    const server = await OpenAITestServer.start();
    try {
      server.enqueue(
        streamReply([
          chunk({ role: "assistant", content: "Looking." }),
          chunk({
            tool_calls: [
              { index: 0, id: "call_a", type: "function", function: { name: "ls", arguments: "" } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"."}' } }] }),
          chunk({}, "tool_calls"),
          usageChunk(100, 10),
        ]),
        streamReply([
          chunk({ role: "assistant", content: "Three entries." }),
          chunk({}, "stop"),
          usageChunk(200, 5),
        ]),
      );
      const result = await runTs(MAIN, ["--model", "served-model", "--no-session", "what is here?"], {
        cwd: sandbox.cwd,
        env: { ...sandbox.env, OPENAI_BASE_URL: server.baseURL },
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`model served-model via ${server.baseURL}`);
      expect(result.stdout).toContain('✓ ls {"path":"."} → 3 lines');
      expect(result.stdout).toContain("Three entries.");
      expect(server.requests).toHaveLength(2);
      expect(server.requests[0]?.body.model).toBe("served-model");
      expect(server.requests[0]?.body.tools.map((tool: any) => tool.function.name)).toEqual([
        "read",
        "write",
        "edit",
        "bash",
        "ls",
      ]);
      const toolMessage = server.requests[1]?.body.messages.find((message: any) => message.role === "tool");
      expect(toolMessage.content).toContain("notes.txt");
    } finally {
      await server.close();
    }
  });

  it("retries a transient server error after a backoff, and shows it (dimmed, and in --json)", async () => {
    const server = await OpenAITestServer.start();
    const overloaded = {
      kind: "json",
      status: 503,
      body: { error: { message: "overloaded, try later" } },
    } as const;
    const reply = () => streamReply([chunk({ role: "assistant", content: "Back." }), chunk({}, "stop")]);
    try {
      const env = { ...sandbox.env, OPENAI_BASE_URL: server.baseURL };
      server.enqueue(overloaded, reply());
      const shown = await runTs(MAIN, ["--no-session", "hello"], { cwd: sandbox.cwd, env });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/error: .*503.*\nretrying in 2 s \(attempt 1\/3\): .*503/);
      expect(shown.stdout).toMatch(/Back\.\n$/);

      server.enqueue(overloaded, reply());
      const json = await runTs(MAIN, ["--no-session", "--json", "hello"], { cwd: sandbox.cwd, env });
      expect(json.code).toBe(0);
      const events = json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; attempt?: number });
      expect(events.filter((event) => event.type === "retry")).toEqual([
        expect.objectContaining({ type: "retry", attempt: 1, maxRetries: 3, delayMs: 2000 }),
      ]);
      expect(events.filter((event) => event.type === "agent_start")).toHaveLength(2);
      expect(events.at(-1)?.type).toBe("agent_end");
      expect(server.requests).toHaveLength(4);
    } finally {
      await server.close();
    }
  });
});
