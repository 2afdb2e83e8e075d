import type { AgentMessage, AssistantMessage } from "../types/index.js";
import { emptyUsage } from "../types/index.js";
import { SessionError, type SessionErrorCode } from "../types/session-error.js";
import type { Session } from "./session.js";
import type { SessionRepo, WriteFault } from "./session-repo.js";

/** What a conformance factory returns for one test. */
export interface SessionRepoFixture {
  repo: SessionRepo;
  /** Another repo instance over the same storage (to check that locks hold across instances). */
  sibling?: () => SessionRepo;
  cleanup?: () => void | Promise<void>;
}

/** Builds a fresh, empty repo; it must call `writeFault` before each write and fail the write if it returns an error. */
export type SessionRepoFactory = (hooks: {
  writeFault: WriteFault;
}) => SessionRepoFixture | Promise<SessionRepoFixture>;

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string, provider = "p", model = "m"): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "scripted",
  provider,
  model,
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 2,
});

/** The assertions the suite uses; vitest's and Jest's `expect` provide them. */
export interface ConformanceMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toContain(expected: unknown): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toBeTruthy(): void;
  toHaveLength(length: number): void;
  // biome-ignore lint/suspicious/noExplicitAny: a class constructor of any shape
  toBeInstanceOf(expected: abstract new (...args: any[]) => unknown): void;
  readonly not: Omit<ConformanceMatchers, "not">;
}

/**
 * The test functions the suite registers its cases with. Pass vitest's (or Jest's) own, so that
 * `agentchart/testing` does not depend on a test runner:
 * `import { describe, expect, it } from "vitest"`.
 */
export interface ConformanceTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): ConformanceMatchers;
}

async function checkCode(
  expect: ConformanceTestApi["expect"],
  promise: Promise<unknown> | (() => unknown),
  code: SessionErrorCode,
): Promise<SessionError> {
  let caught: unknown;
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SessionError);
  expect((caught as SessionError).code).toBe(code);
  return caught as SessionError;
}

const texts = (session: Session, leafId?: string | null) =>
  session.buildContext(leafId).messages.map((m) => {
    const message = m as { role: string; content?: unknown; summary?: string };
    if (typeof message.content === "string") return message.content;
    if (Array.isArray(message.content)) return (message.content[0] as { text?: string }).text;
    return `${message.role}:${message.summary}`;
  });

/**
 * Registers the session repository contract as test cases against `factory`, with the test
 * runner's own `describe`, `it` and `expect` (vitest or Jest).
 *
 * ```ts
 * import { describe, expect, it } from "vitest";
 * import { MemorySessionRepo } from "agentchart";
 * sessionRepoConformance(
 *   "MemorySessionRepo",
 *   ({ writeFault }) => ({ repo: new MemorySessionRepo({ writeFault }) }),
 *   { describe, it, expect },
 * );
 * ```
 */
export function sessionRepoConformance(
  name: string,
  factory: SessionRepoFactory,
  testApi: ConformanceTestApi,
): void {
  const { describe, it, expect } = testApi;
  const expectCode = (promise: Promise<unknown> | (() => unknown), code: SessionErrorCode) =>
    checkCode(expect, promise, code);
  describe(`${name} conforms to SessionRepo`, () => {
    const faults = new Map<string, Error>();
    const withRepo = (test: (fixture: SessionRepoFixture) => Promise<void>) => async () => {
      faults.clear();
      const fixture = await factory({ writeFault: (id) => faults.get(id) });
      try {
        await test(fixture);
      } finally {
        await fixture.cleanup?.();
      }
    };

    describe("create, open, list, delete", () => {
      it(
        "creates a session with a header only and reopens it with the same id, cwd and metadata",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ cwd: "/work/a", metadata: { purpose: "test" } });
          expect(session.leafId).toBeNull();
          expect(session.getEntries()).toEqual([]);
          expect(session.header).toMatchObject({
            type: "session",
            version: 3,
            id: session.id,
            cwd: "/work/a",
          });
          await session.close();
          const reopened = await repo.open(session.id);
          expect(reopened.cwd).toBe("/work/a");
          expect(reopened.metadata).toEqual({ purpose: "test" });
          await reopened.close();
        }),
      );

      it(
        "persists every entry type and rebuilds the same tree on reopen",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ cwd: "/w", id: "s-1" });
          const first = await session.appendMessage(user("one"));
          await session.appendModelChange("prov", "model-x");
          await session.appendThinkingLevelChange("high");
          await session.appendActiveToolsChange(["read", "bash"]);
          await session.appendMessage(assistant("two"));
          await session.appendCompaction({ summary: "sum", firstKeptEntryId: first.id, tokensBefore: 10 });
          await session.appendBranchSummary({ fromId: first.id, summary: "left" });
          await session.appendCustom("marker", { n: 1 });
          await session.appendCustomMessage({
            customType: "note",
            content: "hello",
            display: false,
            details: { x: 1 },
          });
          await session.setLabel(first.id, "start");
          await session.setName("Named\nsession");
          await session.close();
          const reopened = await repo.open("s-1");
          expect(reopened.getEntries()).toEqual(session.getEntries());
          expect(reopened.leafId).toBe(session.leafId);
          expect(reopened.buildContext()).toEqual(session.buildContext());
          expect(reopened.getLabel(first.id)).toBe("start");
          expect(reopened.name).toBe("Named session");
          await reopened.close();
        }),
      );

      it(
        "rejects duplicate and unsafe ids and unknown sessions with codes",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "dup" });
          await expectCode(repo.create({ id: "dup" }), "already_exists");
          await expectCode(repo.create({ id: "../escape" }), "invalid_id");
          await expectCode(repo.create({ id: "a/b" }), "invalid_id");
          await expectCode(repo.create({ cwd: "/a/../../etc" }), "invalid_id");
          await expectCode(repo.open("missing"), "not_found");
          await expectCode(repo.open("../dup"), "invalid_id");
          await session.close();
        }),
      );

      it(
        "lists sessions newest first, filtered by cwd, with names and parents",
        withRepo(async ({ repo }) => {
          const a = await repo.create({ cwd: "/one", id: "a" });
          const b = await repo.create({ cwd: "/two", id: "b" });
          await b.setName("bee");
          await b.flush();
          await a.appendMessage(user("newest"));
          await a.flush();
          const all = await repo.list();
          expect(all.map((info) => info.id)).toEqual(["a", "b"]);
          expect(all[1]).toMatchObject({ id: "b", cwd: "/two", name: "bee" });
          expect(all[0]!.createdAt).toBeInstanceOf(Date);
          expect((await repo.list({ cwd: "/two" })).map((info) => info.id)).toEqual(["b"]);
          expect(await repo.list({ cwd: "/none" })).toEqual([]);
          const fork = await repo.fork("a");
          expect((await repo.list()).find((info) => info.id === fork.id)?.parentSession).toBeTruthy();
          await Promise.all([a.close(), b.close(), fork.close()]);
        }),
      );

      it(
        "lists the latest name of large sessions: named early, renamed several times, never named",
        withRepo(async ({ repo }) => {
          const bulk = "x".repeat(10_000);
          const grow = async (session: Session, messages: number) => {
            for (let i = 0; i < messages; i++) session.appendMessage(user(`${i} ${bulk}`));
            await session.flush();
          };
          const nameOf = async (id: string) => (await repo.list()).find((info) => info.id === id)?.name;
          const early = await repo.create({ id: "named-early" });
          await early.setName("early");
          await grow(early, 30);
          expect(await nameOf("named-early")).toBe("early");
          await early.close();
          expect(await nameOf("named-early")).toBe("early");
          const reopened = await repo.open("named-early");
          await grow(reopened, 10);
          expect(await nameOf("named-early")).toBe("early");
          await reopened.close();

          const renamed = await repo.create({ id: "renamed" });
          for (const name of ["first", "second", "", "third"]) {
            await renamed.setName(name);
            await grow(renamed, 10);
            expect(await nameOf("renamed")).toBe(name === "" ? undefined : name);
          }
          await renamed.close();
          const again = await repo.open("renamed");
          await again.setName("fourth");
          await again.close();
          expect(await nameOf("renamed")).toBe("fourth");

          const unnamed = await repo.create({ id: "unnamed" });
          await grow(unnamed, 30);
          await unnamed.close();
          const unnamedInfo = (await repo.list()).find((info) => info.id === "unnamed");
          expect(unnamedInfo?.id).toBe("unnamed");
          expect(unnamedInfo !== undefined && "name" in unnamedInfo).toBe(false);
          expect(await nameOf("named-early")).toBe("early");
        }),
      );

      it(
        "lists the name of the last real session_info entry, not a nested look-alike",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "named" });
          await session.setName("real name");
          await session.appendCustom("note", { type: "session_info", name: "look-alike" });
          await session.flush();
          expect((await repo.list())[0]).toMatchObject({ id: "named", name: "real name" });
          await session.setName("");
          await session.flush();
          expect((await repo.list())[0]!.name).toBeUndefined();
          await session.close();
        }),
      );

      it(
        "deletes idempotently, but not while a writer has the session open",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "gone" });
          await expectCode(repo.delete("gone"), "locked");
          await session.close();
          await repo.delete("gone");
          await repo.delete("gone");
          await expectCode(repo.open("gone"), "not_found");
          expect(await repo.list()).toEqual([]);
        }),
      );

      it(
        "matches ids exactly: session 1 is not session team_1",
        withRepo(async ({ repo }) => {
          const team = await repo.create({ id: "team_1" });
          await team.appendMessage(user("in team_1"));
          await team.close();
          await expectCode(repo.open("1"), "not_found");
          await repo.delete("1");
          const one = await repo.create({ id: "1" });
          await one.close();
          await repo.delete("1");
          const reopened = await repo.open("team_1");
          expect(texts(reopened)).toEqual(["in team_1"]);
          await reopened.close();
        }),
      );

      it(
        "refuses a stored message of the wrong shape on open (invalid_entry naming its line); recover skips it",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "edited" });
          await session.appendMessage(user("before"));
          // Written past the types, as a hand edit or another program would leave it.
          await session.appendMessage({
            role: "user",
            content: 12345,
            timestamp: 1,
          } as unknown as AgentMessage);
          await session.appendMessage(user("after"));
          await session.close();
          const error = await expectCode(repo.open("edited"), "invalid_entry");
          expect(error.message).toContain("line 3: message.content");
          const recovered = await repo.open("edited", { recover: true });
          expect(recovered.recovered.map((line) => line.line)).toEqual([3]);
          expect(texts(recovered)).toEqual(["before", "after"]);
          await recovered.close();
        }),
      );

      it(
        "allows one writer per session until it closes",
        withRepo(async ({ repo, sibling }) => {
          const session = await repo.create({ id: "one-writer" });
          await expectCode(repo.open("one-writer"), "locked");
          if (sibling) await expectCode(sibling().open("one-writer"), "locked");
          await session.close();
          await session.close();
          const again = await repo.open("one-writer");
          await again.close();
        }),
      );
    });

    describe("tree and context", () => {
      it(
        "appends to the leaf, branches with moveTo and builds each branch's context",
        withRepo(async ({ repo }) => {
          const session = await repo.create();
          const q = await session.appendMessage(user("q"));
          const a1 = await session.appendMessage(assistant("a1"));
          expect(a1.parentId).toBe(q.id);
          expect(session.leafId).toBe(a1.id);
          await session.moveTo(q.id);
          const a2 = await session.appendMessage(assistant("a2"));
          expect(a2.parentId).toBe(q.id);
          expect(session.getChildren(q.id).map((e) => e.id)).toEqual([a1.id, a2.id]);
          expect(session.getBranch(a1.id).map((e) => e.id)).toEqual([q.id, a1.id]);
          expect(texts(session)).toEqual(["q", "a2"]);
          expect(texts(session, a1.id)).toEqual(["q", "a1"]);
          expect(session.getTree()).toHaveLength(1);
          expect(session.getTree()[0]!.children.map((node) => node.entry.id)).toEqual([a1.id, a2.id]);
          await expectCode(session.moveTo("nope"), "not_found");
          const summary = await session.moveTo(a1.id, { summary: "tried a2" });
          expect(summary).toMatchObject({ type: "branch_summary", parentId: a1.id, fromId: a1.id });
          expect(texts(session)).toEqual(["q", "a1", "branchSummary:tried a2"]);
          await session.moveTo(null);
          const root2 = await session.appendMessage(user("fresh"));
          expect(root2.parentId).toBeNull();
          expect(texts(session)).toEqual(["fresh"]);
          await session.close();
        }),
      );

      it(
        "starts the context at the latest compaction and keeps settings from before it",
        withRepo(async ({ repo }) => {
          const session = await repo.create();
          await session.appendThinkingLevelChange("medium");
          await session.appendModelChange("p1", "m1");
          await session.appendMessage(user("old"));
          const kept = await session.appendMessage(user("kept"));
          await session.appendMessage(assistant("reply", "p2", "m2"));
          await session.appendCompaction({ summary: "S", firstKeptEntryId: kept.id, tokensBefore: 99 });
          await session.appendMessage(user("after"));
          const context = session.buildContext();
          expect(context.messages[0]).toMatchObject({
            role: "compactionSummary",
            summary: "S",
            tokensBefore: 99,
          });
          expect(texts(session)).toEqual(["compactionSummary:S", "kept", "reply", "after"]);
          expect(context.thinkingLevel).toBe("medium");
          expect(context.model).toEqual({ provider: "p2", modelId: "m2" });
          await session.appendModelChange("p3", "m3");
          expect(session.buildContext().model).toEqual({ provider: "p3", modelId: "m3" });
          await expectCode(
            session.appendCompaction({ summary: "x", firstKeptEntryId: "not-there", tokensBefore: 1 }),
            "invalid_entry",
          );
          await session.close();
        }),
      );

      it(
        "defaults thinking level to off and turns custom messages into context messages",
        withRepo(async ({ repo }) => {
          const session = await repo.create();
          expect(session.buildContext()).toEqual({
            messages: [],
            model: null,
            thinkingLevel: "off",
            activeToolNames: null,
          });
          await session.appendCustom("state", { hidden: true });
          await session.appendCustomMessage({ customType: "note", content: "visible", details: { d: 1 } });
          const [message] = session.buildContext().messages;
          expect(session.buildContext().messages).toHaveLength(1);
          expect(message).toMatchObject({
            role: "custom",
            customType: "note",
            content: "visible",
            display: true,
          });
          await session.close();
        }),
      );

      it(
        "keeps labels and names (latest wins, blank clears) and never writes API keys",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "labels" });
          const entry = await session.appendMessage({
            ...user("x"),
            apiKey: "sk-secret",
          } as unknown as AgentMessage);
          await session.setLabel(entry.id, " first ");
          await session.setLabel(entry.id, "second");
          expect(session.getLabel(entry.id)).toBe("second");
          await session.setLabel(entry.id);
          expect(session.getLabel(entry.id)).toBeUndefined();
          await session.setLabel(entry.id, "final");
          await expectCode(session.setLabel("missing", "x"), "not_found");
          await session.setName("  ");
          expect(session.name).toBeUndefined();
          await session.setName("title");
          await session.close();
          const reopened = await repo.open("labels");
          expect(reopened.getLabel(entry.id)).toBe("final");
          expect(reopened.getTree()[0]!.label).toBe("final");
          expect(reopened.name).toBe("title");
          expect(JSON.stringify(reopened.getEntries())).not.toContain("sk-secret");
          await reopened.close();
        }),
      );
    });

    describe("sub-agent sessions", () => {
      it(
        "keeps a child session's parentSession and parentToolCallId through open and list; other headers have none",
        withRepo(async ({ repo }) => {
          const parent = await repo.create({ id: "parent" });
          const child = await repo.create({
            id: "child",
            parentSession: "parent",
            parentToolCallId: "call_7",
          });
          expect(child.header).toMatchObject({ parentSession: "parent", parentToolCallId: "call_7" });
          await child.appendMessage(user("task"));
          await Promise.all([child.close(), parent.close()]);
          const reopened = await repo.open("child");
          expect(reopened.header).toMatchObject({ parentSession: "parent", parentToolCallId: "call_7" });
          expect(texts(reopened)).toEqual(["task"]);
          await reopened.close();
          const infos = await repo.list();
          expect(infos.find((info) => info.id === "child")).toMatchObject({
            parentSession: "parent",
            parentToolCallId: "call_7",
          });
          const parentInfo = infos.find((info) => info.id === "parent");
          expect(parentInfo?.parentSession).toBeUndefined();
          expect(parentInfo?.parentToolCallId).toBeUndefined();
          const fork = await repo.fork("child");
          expect(fork.header.parentToolCallId).toBeUndefined();
          await fork.close();
        }),
      );
    });

    describe("forks", () => {
      it(
        "forks at and before an entry without touching the source, while the source stays open",
        withRepo(async ({ repo }) => {
          const source = await repo.create({ id: "src", cwd: "/f", metadata: { k: 1 } });
          const q1 = await source.appendMessage(user("q1"));
          const a1 = await source.appendMessage(assistant("a1"));
          const q2 = await source.appendMessage(user("q2"));
          await source.moveTo(q1.id);
          const other = await source.appendMessage(assistant("other branch"));
          await source.moveTo(q2.id);
          const before = source.getEntries();

          const at = await repo.fork("src", { entryId: a1.id, position: "at" });
          expect(at.getEntries().map((e) => e.id)).toEqual([q1.id, a1.id]);
          expect(at.header.parentSession).toBeTruthy();
          expect(at.cwd).toBe("/f");
          expect(at.metadata).toEqual({ k: 1 });
          const beforeFork = await repo.fork("src", { entryId: q2.id, position: "before" });
          expect(beforeFork.getEntries().map((e) => e.id)).toEqual([q1.id, a1.id]);
          // Without entryId the fork follows the stored leaf (the last entry), not an unpersisted moveTo.
          const whole = await repo.fork("src");
          expect(whole.getEntries().map((e) => e.id)).toEqual(source.getBranch(other.id).map((e) => e.id));

          await at.appendMessage(user("diverge"));
          await at.close();
          const reopenedFork = await repo.open(at.id);
          expect(texts(reopenedFork)).toEqual(["q1", "a1", "diverge"]);
          expect(source.getEntries()).toEqual(before);
          await source.appendMessage(assistant("source continues"));
          await Promise.all([reopenedFork.close(), beforeFork.close(), whole.close(), source.close()]);
          const reopenedSource = await repo.open("src");
          expect(reopenedSource.getEntries()).toHaveLength(before.length + 1);
          await reopenedSource.close();
        }),
      );

      it(
        "rejects a fork target that does not exist and a missing source",
        withRepo(async ({ repo }) => {
          const source = await repo.create({ id: "src2" });
          await source.appendMessage(user("q"));
          await expectCode(repo.fork("src2", { entryId: "nope" }), "invalid_fork_target");
          await expectCode(repo.fork("nothing"), "not_found");
          await source.close();
        }),
      );
    });

    describe("storage failures", () => {
      it(
        "fails the session on a write error, rejects later appends and loses nothing silently",
        withRepo(async ({ repo }) => {
          const session = await repo.create({ id: "fragile" });
          await session.appendMessage(user("safe"));
          faults.set("fragile", new Error("disk full"));
          const failing = session.appendMessage(user("lost"));
          const error = await expectCode(failing, "storage");
          expect(error.message).toContain("disk full");
          expect(session.status).toBe("failed");
          await expectCode(session.flush(), "storage");
          faults.clear();
          const sizeBefore = session.getEntries().length;
          await expectCode(session.appendMessage(user("later")), "storage");
          expect(session.getEntries()).toHaveLength(sizeBefore);
          await session.close();
          const reopened = await repo.open("fragile");
          expect(texts(reopened)).toEqual(["safe"]);
          await reopened.close();
        }),
      );

      it(
        "refuses appends after close and reports flushes of everything queued before",
        withRepo(async ({ repo }) => {
          const session = await repo.create();
          const pending = [session.appendMessage(user("a")), session.appendMessage(user("b"))];
          await session.flush();
          await Promise.all(pending);
          await session.close();
          expect(session.status).toBe("closed");
          await expectCode(session.appendMessage(user("c")), "storage");
        }),
      );
    });
  });
}
