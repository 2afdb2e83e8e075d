import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { SessionError } from "../types/session-error.js";
import type { RecoveredLine, SessionHeader } from "./entries.js";
import { acquireLock } from "./file-lock.js";
import { forkHeader, selectForkEntries } from "./fork.js";
import { assertValidCwd, assertValidSessionId, createSessionId } from "./ids.js";
import {
  type Durability,
  encodeCwd,
  listCwdFolders,
  listSessionFiles,
  readFirstLine,
  sessionFileName,
  sessionIdOfFileName,
  storageError,
  writeFileAtomic,
} from "./jsonl-files.js";
import { folderLitter, removeLitter, sessionLitter } from "./jsonl-litter.js";
import { JsonlFileSink } from "./jsonl-sink.js";
import { migrateHeader } from "./migrate.js";
import { Session } from "./session.js";
import { type ParsedSession, parseSessionText, serializeSession } from "./session-file.js";
import { createSessionHeader } from "./session-header.js";
import { listIndexPathOf, readLatestName } from "./session-list-index.js";
import type {
  CreateSessionOptions,
  ForkSessionOptions,
  OpenSessionOptions,
  SessionInfo,
  SessionRepo,
  WriteFault,
} from "./session-repo.js";
import { SessionTree } from "./session-tree.js";

/** Options of {@link JsonlSessionRepo}. */
export interface JsonlSessionRepoOptions {
  /** Directory holding one folder per cwd; a leading `~` is the user's home, as in a shell. */
  root: string;
  /** "none" (default): a write is acknowledged once in the OS page cache; "fsync": once on disk. */
  durability?: Durability;
  /** Test hook: return an error to make the next write of that session fail. */
  writeFault?: WriteFault;
}

/**
 * Sessions as pi-compatible JSONL files: `<root>/<encoded cwd>/<time>_<id>.jsonl`, a header line then
 * one entry per line. One writer per session (lock file with the pid), torn tails repaired on open,
 * forks and headers created atomically, pi v1/v2 files migrated (and rewritten as v3 on open).
 */
export class JsonlSessionRepo implements SessionRepo {
  private readonly root: string;
  private readonly durability: Durability;

  constructor(private readonly options: JsonlSessionRepoOptions) {
    this.root = resolve(expandHome(options.root));
    this.durability = options.durability ?? "none";
  }

  async create(options: CreateSessionOptions = {}): Promise<Session> {
    const id = options.id ?? createSessionId();
    assertValidSessionId(id);
    const cwd = options.cwd ?? process.cwd();
    assertValidCwd(cwd);
    if (options.id !== undefined && this.findFile(id) !== undefined) {
      throw new SessionError("already_exists", `Session "${id}" already exists; pick another id or open it.`);
    }
    const header = createSessionHeader({
      id,
      cwd,
      metadata: options.metadata,
      parentSession: options.parentSession,
      parentToolCallId: options.parentToolCallId,
    });
    return this.publish(header, new SessionTree());
  }

  async open(id: string, options: OpenSessionOptions = {}): Promise<Session> {
    const path = this.requireFile(id);
    const release = acquireLock(path, id);
    try {
      removeLitter(sessionLitter(path));
      const { parsed, text } = this.read(path, options);
      const recovered = this.repair(path, parsed, text);
      const fd = openSync(path, "a");
      const owner = { id, path, name: parsed.tree.name };
      const sink = new JsonlFileSink(fd, owner, this.durability, release, this.options.writeFault);
      return new Session({ header: parsed.header, tree: parsed.tree, sink, path, recovered });
    } catch (error) {
      release();
      throw storageError(`Cannot open session "${id}"`, error);
    }
  }

  async list(options: { cwd?: string } = {}): Promise<SessionInfo[]> {
    if (options.cwd !== undefined) assertValidCwd(options.cwd);
    const cwdDir = options.cwd === undefined ? undefined : encodeCwd(options.cwd);
    const infos: SessionInfo[] = [];
    for (const path of listSessionFiles(this.root, cwdDir)) {
      const info = this.describe(path);
      if (info && (options.cwd === undefined || info.cwd === options.cwd)) infos.push(info);
    }
    return infos.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  }

  async delete(id: string): Promise<void> {
    assertValidSessionId(id);
    const path = this.findFile(id);
    if (path === undefined) return;
    const release = acquireLock(path, id); // `locked` while a writer has it open
    try {
      for (const file of [path, listIndexPathOf(path)]) {
        try {
          unlinkSync(file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT")
            throw storageError(`Cannot delete ${file}`, error);
        }
      }
      removeLitter(sessionLitter(path));
    } finally {
      release();
    }
  }

  /**
   * Finds the litter that processes killed mid-write left in the repo — temporary files, lock-staging
   * folders, locks of session files never written — and removes it unless `dryRun`. `open` already
   * removes the litter of the session it opens; this sweeps every folder (e.g. after a crashed `fork`).
   *
   * Contract: async; never touches a session file, its `.corrupt-*` copies or a lock a live process
   * holds; rejects with `SessionError("storage")` only when the repo cannot be read.
   * @example
   * ```ts
   * const repo = new JsonlSessionRepo({ root: "sessions" });
   * const removed = await repo.removeLitter(); // the paths removed
   * ```
   */
  async removeLitter(options: { dryRun?: boolean } = {}): Promise<string[]> {
    const dryRun = options.dryRun ?? false;
    return listCwdFolders(this.root).flatMap((dir) => folderLitter(dir, { dryRun }));
  }

  async fork(sourceId: string, options: ForkSessionOptions = {}): Promise<Session> {
    const sourcePath = this.requireFile(sourceId);
    const source = this.read(sourcePath, {}).parsed; // no lock: the source's writer may keep appending
    const entries = selectForkEntries(source.tree, options);
    const header = forkHeader(source.header, sourcePath);
    return this.publish(header, SessionTree.fromEntries(entries));
  }

  /** Writes a new session file atomically (lock first, then temp + rename) and opens it. */
  private publish(header: SessionHeader, tree: SessionTree): Session {
    const dir = join(this.root, encodeCwd(header.cwd));
    const path = join(dir, sessionFileName(header.timestamp, header.id));
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw storageError(`Cannot create the session folder ${dir}`, error);
    }
    const release = acquireLock(path, header.id);
    try {
      writeFileAtomic(path, serializeSession(header, tree.getEntries()), this.durability);
      const fd = openSync(path, "a");
      const owner = { id: header.id, path, name: tree.name };
      const sink = new JsonlFileSink(fd, owner, this.durability, release, this.options.writeFault);
      return new Session({ header, tree, sink, path });
    } catch (error) {
      release();
      throw storageError(`Cannot create session "${header.id}"`, error);
    }
  }

  private read(path: string, options: OpenSessionOptions): { parsed: ParsedSession; text: string } {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new SessionError("not_found", `Session file ${path} no longer exists.`);
      }
      throw storageError(`Cannot read ${path}`, error);
    }
    try {
      return { parsed: parseSessionText(text, options), text };
    } catch (error) {
      if (error instanceof SessionError) {
        throw new SessionError(error.code, `${error.message} (${path})`, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Makes the file match the parsed session before appending: a torn tail is cut (and kept in
   * `<file>.corrupt-<time>`); skipped lines or an old format version trigger an atomic rewrite as
   * v3 (skipped lines kept beside the file too); a missing final newline is added.
   */
  private repair(path: string, parsed: ParsedSession, text: string): RecoveredLine[] {
    const recovered = [...parsed.skipped];
    const cut = [...parsed.skipped.map((line) => line.text)];
    if (parsed.tornTail) {
      recovered.push(parsed.tornTail);
      cut.push(parsed.tornTail.text);
    }
    if (cut.length > 0) {
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      writeFileAtomic(`${path}.corrupt-${stamp}`, `${cut.join("\n")}\n`, this.durability);
    }
    if (parsed.skipped.length > 0 || parsed.sourceVersion < 3) {
      writeFileAtomic(path, serializeSession(parsed.header, parsed.tree.getEntries()), this.durability);
    } else if (parsed.tornTail) {
      truncateSync(path, Buffer.byteLength(text.slice(0, parsed.tornTail.start)));
    } else if (parsed.missingFinalNewline) {
      appendFileSync(path, "\n");
    }
    return recovered;
  }

  /**
   * What `list()` shows of one file, reading only the header line and what `readLatestName` needs
   * for the name; `undefined` for a file that is not a session or vanished meanwhile.
   */
  private describe(path: string): SessionInfo | undefined {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return undefined; // vanished while listing
    }
    try {
      const raw: unknown = JSON.parse(readFirstLine(fd));
      const value = raw as Record<string, unknown>;
      if (value?.type !== "session" || typeof value.id !== "string" || typeof value.cwd !== "string")
        return undefined;
      const header = migrateHeader(value);
      const stat = fstatSync(fd);
      const info: SessionInfo = {
        id: header.id,
        cwd: header.cwd,
        createdAt: new Date(header.timestamp),
        modifiedAt: stat.mtime,
        path,
      };
      const name = nameOrNone(path, fd, stat.size, stat.ino);
      if (name !== undefined) info.name = name;
      if (header.parentSession !== undefined) info.parentSession = header.parentSession;
      if (header.parentToolCallId !== undefined) info.parentToolCallId = header.parentToolCallId;
      return info;
    } catch {
      return undefined; // not a session file
    } finally {
      closeSync(fd);
    }
  }

  /** The file of session `id`: the one whose name encodes exactly that id. */
  private findFile(id: string): string | undefined {
    return listSessionFiles(this.root).find((path) => sessionIdOfFileName(basename(path)) === id);
  }

  private requireFile(id: string): string {
    assertValidSessionId(id);
    const path = this.findFile(id);
    if (path === undefined)
      throw new SessionError("not_found", `Session "${id}" does not exist under ${this.root}.`);
    return path;
  }
}

/** The session's latest name; a failed read of the file's body lists the session without one. */
function nameOrNone(path: string, fd: number, size: number, ino: number): string | undefined {
  try {
    return readLatestName(path, fd, size, ino);
  } catch {
    return undefined;
  }
}

/** `~` and `~/…` under the user's home (a shell's expansion, which a path in code does not get). */
function expandHome(path: string): string {
  return path === "~" || /^~[/\\]/.test(path) ? join(homedir(), path.slice(1)) : path;
}
