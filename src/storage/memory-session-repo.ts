import { SessionError } from "../types/session-error.js";
import type { SessionHeader } from "./entries.js";
import { forkHeader, selectForkEntries } from "./fork.js";
import { assertValidCwd, assertValidSessionId, createSessionId } from "./ids.js";
import { Session } from "./session.js";
import { parseSessionText, serializeLine } from "./session-file.js";
import { createSessionHeader } from "./session-header.js";
import type {
  CreateSessionOptions,
  ForkSessionOptions,
  OpenSessionOptions,
  SessionInfo,
  SessionRepo,
  WriteFault,
} from "./session-repo.js";
import { SessionTree } from "./session-tree.js";
import type { SessionSink } from "./session-writer.js";

interface StoredSession {
  header: SessionHeader;
  /** Serialized entry lines, exactly what a JSONL file would hold after the header. */
  chunks: string[];
  modifiedAt: number;
  locked: boolean;
  name: string | undefined;
}

/** Options of {@link MemorySessionRepo}. */
export interface MemorySessionRepoOptions {
  /** Test hook: return an error to make the next write of that session fail. */
  writeFault?: WriteFault;
}

function defaultCwd(): string {
  const processLike = (globalThis as { process?: { cwd?: () => string } }).process;
  return processLike?.cwd?.() ?? "/";
}

/**
 * Session repo kept in memory (no `node:` imports, works in browsers). Sessions are stored as the
 * same serialized lines a JSONL file holds and re-parsed on `open`, so both repos behave alike.
 */
export class MemorySessionRepo implements SessionRepo {
  private readonly sessions = new Map<string, StoredSession>();
  private clock = 0;

  constructor(private readonly options: MemorySessionRepoOptions = {}) {}

  async create(options: CreateSessionOptions = {}): Promise<Session> {
    const id = options.id ?? createSessionId();
    assertValidSessionId(id);
    const cwd = options.cwd ?? defaultCwd();
    assertValidCwd(cwd);
    if (this.sessions.has(id)) throw new SessionError("already_exists", `Session "${id}" already exists.`);
    const header = createSessionHeader({
      id,
      cwd,
      metadata: options.metadata,
      parentSession: options.parentSession,
      parentToolCallId: options.parentToolCallId,
    });
    return this.store(header, new SessionTree(), []);
  }

  async open(id: string, options: OpenSessionOptions = {}): Promise<Session> {
    const stored = this.require(id);
    if (stored.locked) throw lockedError(id);
    const parsed = parseSessionText(serializeLine(stored.header) + stored.chunks.join(""), options);
    stored.locked = true;
    return new Session({
      header: parsed.header,
      tree: parsed.tree,
      sink: this.sink(id, stored),
      recovered: parsed.skipped,
    });
  }

  async list(options: { cwd?: string } = {}): Promise<SessionInfo[]> {
    const infos: SessionInfo[] = [];
    for (const stored of this.sessions.values()) {
      if (options.cwd !== undefined && stored.header.cwd !== options.cwd) continue;
      const info: SessionInfo = {
        id: stored.header.id,
        cwd: stored.header.cwd,
        createdAt: new Date(stored.header.timestamp),
        modifiedAt: new Date(stored.modifiedAt),
      };
      if (stored.name !== undefined) info.name = stored.name;
      if (stored.header.parentSession !== undefined) info.parentSession = stored.header.parentSession;
      if (stored.header.parentToolCallId !== undefined)
        info.parentToolCallId = stored.header.parentToolCallId;
      infos.push(info);
    }
    return infos.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  }

  async delete(id: string): Promise<void> {
    assertValidSessionId(id);
    if (this.sessions.get(id)?.locked) throw lockedError(id);
    this.sessions.delete(id);
  }

  async fork(sourceId: string, options: ForkSessionOptions = {}): Promise<Session> {
    const source = this.require(sourceId);
    const parsed = parseSessionText(serializeLine(source.header) + source.chunks.join(""));
    const entries = selectForkEntries(parsed.tree, options);
    const header = forkHeader(source.header, sourceId);
    return this.store(header, SessionTree.fromEntries(entries), entries.map(serializeLine));
  }

  private store(header: SessionHeader, tree: SessionTree, chunks: string[]): Session {
    const stored: StoredSession = { header, chunks, modifiedAt: this.tick(), locked: true, name: tree.name };
    this.sessions.set(header.id, stored);
    return new Session({ header, tree, sink: this.sink(header.id, stored) });
  }

  private sink(id: string, stored: StoredSession): SessionSink {
    return {
      write: (text) => {
        const fault = this.options.writeFault?.(id);
        if (fault) throw fault;
        stored.chunks.push(text);
        stored.modifiedAt = this.tick();
        // Keep the listed name current without re-parsing: only session_info lines can change it.
        if (text.includes('"type":"session_info"')) {
          const parsed = parseSessionText(serializeLine(stored.header) + stored.chunks.join(""));
          stored.name = parsed.tree.name;
        }
      },
      close: () => {
        stored.locked = false;
      },
    };
  }

  private require(id: string): StoredSession {
    assertValidSessionId(id);
    const stored = this.sessions.get(id);
    if (!stored) throw new SessionError("not_found", `Session "${id}" does not exist.`);
    return stored;
  }

  /** Strictly increasing modification times, so "newest first" is stable within one millisecond. */
  private tick(): number {
    this.clock = Math.max(this.clock + 1, Date.now());
    return this.clock;
  }
}

function lockedError(id: string): SessionError {
  return new SessionError(
    "locked",
    `Session "${id}" is already open for writing; close the other Session first.`,
  );
}
