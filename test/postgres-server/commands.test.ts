import { describe, expect, it } from "vitest";
import { createAgUiHandler } from "../../src/ag-ui/ag-ui-handler.js";
import { messageTexts, untilAwaiting, watchUntil, workerFixture } from "./worker-fixture.js";

const fixture = workerFixture("commands");

/** What the session still holds of the worker tables: commands and waiting approval requests. */
async function pending(schema: string, sessionId: string) {
  const query = async (sql: string) => (await fixture.server.pool.query(sql, [sessionId])).rows;
  return {
    commands: await query(`SELECT kind FROM "${schema}".commands WHERE session_id = $1 ORDER BY id`),
    requests: await query(`SELECT request_key FROM "${schema}".approval_requests WHERE session_id = $1`),
  };
}

describe("commands of a session", () => {
  it("twelve prompts queued before any worker runs are answered in the order they were sent", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const prompts = Array.from({ length: 12 }, (_, i) => `p${i}`);
    for (const prompt of prompts) await client.submit("ordered", prompt, { cwd: "/w" });
    await fixture.startWorker(schema);
    await watchUntil(client, "ordered", "idle");
    expect(await messageTexts(repo, "ordered")).toEqual(
      prompts.flatMap((prompt) => [prompt, `echo: ${prompt}`]),
    );
  });

  it("an approval sent ahead of the call's request is refused with CommandError not_waiting and stored nowhere; the call waits for a person", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await client.submit("ahead", "guarded door", { cwd: "/w" });
    await expect(client.approve("ahead", "call-1")).rejects.toMatchObject({
      name: "CommandError",
      code: "not_waiting",
    });
    expect(await pending(schema, "ahead")).toEqual({ commands: [{ kind: "PROMPT" }], requests: [] });

    await fixture.startWorker(schema);
    await watchUntil(client, "ahead", "awaiting_approval");
    expect(await messageTexts(repo, "ahead")).toEqual(["guarded door", "[toolCall]"]);
    expect(await fixture.effects(schema)).toEqual([]);
    expect(await client.awaitingApproval("ahead")).toEqual(["call-1"]);
  });

  it("an approval sent twice answers its request once: the next call under the same id waits for its own decision", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await fixture.startWorker(schema);
    await client.submit("twice", "guarded first", { cwd: "/w" });
    await watchUntil(client, "twice", "awaiting_approval");
    await client.approve("twice", "call-1");
    await client.approve("twice", "call-1").catch(() => {}); // a retry: accepted or refused, never kept
    await watchUntil(client, "twice", "idle");
    // The next prompt's call has the same id: the stray approval must not answer it.
    await expect(client.approve("twice", "call-1")).rejects.toMatchObject({
      name: "CommandError",
      code: "not_waiting",
    });
    const { afterSeq } = await client.submit("twice", "guarded second");
    await watchUntil(client, "twice", "awaiting_approval", afterSeq);
    expect((await messageTexts(repo, "twice")).slice(4)).toEqual(["guarded second", "[toolCall]"]);
    expect(await fixture.effects(schema)).toEqual([{ key: "twice:call-1", attempts: 1 }]);
    expect(await pending(schema, "twice")).toEqual({ commands: [], requests: [{ request_key: "call-1" }] });
    // The decision entry names the request it answered.
    const decisions = (await repo.exportJsonl("twice"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.customType === "agentchart.tool_decision");
    expect(decisions).toHaveLength(1);
    expect(decisions[0].data).toMatchObject({ toolCallId: "call-1", decision: { approved: true } });
    expect(typeof decisions[0].data.requestId).toBe("string");
  });

  it("an approve and a later deny of the same waiting call resolve to the deny", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const first = await fixture.startWorker(schema);
    await client.submit("changed", "guarded door", { cwd: "/w" });
    await watchUntil(client, "changed", "awaiting_approval");
    first.child.kill("SIGTERM"); // nothing runs: both decisions wait for the next worker
    expect(await first.exited).toBe(0);
    await untilAwaiting(client, "changed", { toolCallId: "call-1" });
    await client.approve("changed", "call-1");
    await client.deny("changed", "call-1", "changed my mind");
    await fixture.startWorker(schema);
    await watchUntil(client, "changed", "idle");
    expect(await messageTexts(repo, "changed")).toEqual([
      "guarded door",
      "[toolCall]",
      "Tool call denied: changed my mind",
      "done: Tool call denied: changed my mind",
    ]);
    expect(await fixture.effects(schema)).toEqual([]);
    expect(await pending(schema, "changed")).toEqual({ commands: [], requests: [] });
  });
});

describe("rows written by 0.2", () => {
  it("a prompt row and an approval row in 0.2's spelling ({ kind }) still run", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await client.submit("old", "hello", { cwd: "/w" }); // creates the session; its PROMPT row is replaced
    const sql = fixture.server.pool;
    await sql.query(`DELETE FROM "${schema}".commands WHERE session_id = 'old'`);
    await sql.query(
      `INSERT INTO "${schema}".commands (session_id, kind, payload) VALUES ('old', 'prompt', '{"kind":"prompt","text":"guarded door"}')`,
    );
    await fixture.startWorker(schema);
    await watchUntil(client, "old", "awaiting_approval");
    const { rows } = await sql.query(
      `SELECT request_id FROM "${schema}".approval_requests WHERE session_id = 'old' AND request_key = 'call-1'`,
    );
    await sql.query(
      `INSERT INTO "${schema}".commands (session_id, kind, payload, request_id) VALUES ('old', 'approve', $1::jsonb, $2)`,
      [
        JSON.stringify({ kind: "approve", toolCallId: "call-1", requestId: rows[0].request_id }),
        rows[0].request_id,
      ],
    );
    // Any command wakes the session (this one is stale: no sub-agent "nobody" runs).
    await client.send("old", { type: "ABORT", agentPath: ["nobody"] });
    await watchUntil(client, "old", "idle");
    expect(await messageTexts(repo, "old")).toEqual([
      "guarded door",
      "[toolCall]",
      "guarded ran",
      "done: guarded ran",
    ]);
    expect(await fixture.effects(schema)).toEqual([{ key: "old:call-1", attempts: 1 }]);
    expect(await pending(schema, "old")).toEqual({ commands: [], requests: [] });
  });
});

describe("a command a worker cannot apply", () => {
  it("is refused in the session (an agentchart.command_refused entry a watch shows, naming the call) and its row deleted", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    await client.submit("refused", "hello", { cwd: "/w" });
    await client.send("refused", {
      type: "ANSWER_TOOL",
      toolCallId: "nope",
      result: { content: [{ type: "text", text: "42" }] },
    });
    await fixture.startWorker(schema);
    const updates = await watchUntil(client, "refused", "idle");
    const refusals = updates.flatMap((update) =>
      update.type === "entry" &&
      update.entry.type === "custom" &&
      update.entry.customType === "agentchart.command_refused"
        ? [update.entry.data]
        : [],
    );
    expect(refusals).toEqual([
      {
        commandId: expect.any(String),
        code: "not_waiting",
        command: "ANSWER_TOOL",
        agentPath: [],
        toolCallId: "nope",
        message: "ANSWER_TOOL: tool call nope does not wait for a client's result",
      },
    ]);
    expect(await messageTexts(repo, "refused")).toEqual(["hello", "echo: hello"]);
    expect(await pending(schema, "refused")).toEqual({ commands: [], requests: [] });
  });
});

describe("text a session can store", () => {
  it("a prompt with NUL and a lone surrogate is submitted, answered and stored exactly", {
    timeout: 60_000,
  }, async () => {
    const { schema, client, repo } = await fixture.setup();
    const text = "a\u0000b \ud800 c";
    await client.submit("odd", text, { cwd: "/w" });
    await client.steer("odd", `steer ${text}`); // taken as the next prompt
    await fixture.startWorker(schema);
    await watchUntil(client, "odd", "idle");
    expect(await messageTexts(repo, "odd")).toEqual([
      text,
      `echo: ${text}`,
      `steer ${text}`,
      `echo: steer ${text}`,
    ]);
  });

  it("a submit that fails creates nothing: no session, no command", async () => {
    const { schema, client } = await fixture.setup();
    // The command insert fails (as a database error would, after the session row was written).
    await fixture.server.pool.query(
      `CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
    );
    await fixture.server.pool.query(
      `CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".commands FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse()`,
    );
    await expect(client.submit("never", "hello", { cwd: "/w" })).rejects.toThrow(/refused by the test/);
    const { rows } = await fixture.server.pool.query(`SELECT id FROM "${schema}".sessions`);
    expect(rows).toEqual([]);
  });
});

describe("the AG-UI endpoint over sessions keeps the in-process error contract", () => {
  const post = async (handler: (request: Request) => Promise<Response>, body: unknown) => {
    const response = await handler(
      new Request("http://localhost/agent", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
  };

  it("404 unknown_thread, 400 invalid_request, 409 not_waiting (the CommandError)", async () => {
    const { client } = await fixture.setup();
    const handler = createAgUiHandler({ sessions: client });
    await client.submit("known", "hello", { cwd: "/w" }); // no worker: it stays queued

    const unknown = await post(handler, { threadId: "nobody", command: { type: "ABORT" } });
    expect({ status: unknown.status, code: unknown.body.error?.code }).toEqual({
      status: 404,
      code: "unknown_thread",
    });
    for (const threadId of ["../etc", "a b"]) {
      const command = await post(handler, { threadId, command: { type: "steer", text: "x" } });
      expect({ status: command.status, code: command.body.error?.code }).toEqual({
        status: 400,
        code: "invalid_request",
      });
      const run = await post(handler, {
        threadId,
        runId: "r1",
        messages: [{ id: "u1", role: "user", content: "hi" }],
      });
      expect({ status: run.status, code: run.body.error?.code }).toEqual({
        status: 400,
        code: "invalid_request",
      });
    }
    const stray = await post(handler, {
      threadId: "known",
      command: { type: "APPROVE_TOOL", toolCallId: "call-1" },
    });
    expect({ status: stray.status, code: stray.body.error?.code }).toEqual({
      status: 409,
      code: "not_waiting",
    });
  });
});
