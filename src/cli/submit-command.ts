import { addressOf } from "../commands/addressed-command.js";
import { isCommandError } from "../commands/command-error.js";
import type { SessionEntry } from "../storage/entries.js";
import { createSessionId } from "../storage/ids.js";
import { pauseAnswer, pauseQuestion } from "./budget-watch.js";
import { abbreviate } from "./event-renderer.js";
import type { RunIo } from "./run-command.js";
import { redactDatabaseUrl } from "./sessions-database.js";
import { terminalStyle } from "./terminal-style.js";
import { lineAsker } from "./tool-approvals.js";

/** The flags of `agentchart --database-url <url> "prompt"`. */
export interface SubmitCommandOptions {
  databaseUrl: string;
  /** Continue this session id (default: a new one). */
  session?: string;
  /** After this long with the session still queued, say that no worker has taken it (default 3000 ms). */
  noWorkerHintMs?: number;
}

/** The hint printed when no worker has taken the session: how to start one, and that we keep waiting. */
export function noWorkerHint(sessionId: string, databaseUrl: string, waitedMs: number): string {
  return (
    `No worker has taken session ${sessionId} after ${waitedMs / 1000} s. Start one with\n` +
    `  agentchart worker --database-url ${redactDatabaseUrl(databaseUrl)}\n` +
    "Still waiting for one; Ctrl-C stops waiting (the prompt stays queued for the next worker).\n"
  );
}

/**
 * Submits `prompt` to a session served by workers (`agentchart worker`) and prints the reply as the
 * session's entries arrive (watching the session), until the run is idle. A call that waits for
 * approval is asked about on stderr and answered from stdin (`y` approves); so is a run parked at a
 * budget limit — the root's or a sub-agent's — (`r`aise, `c`ontinue once, `s`top: the client sends
 * `RAISE_BUDGET`, `CONTINUE_ONCE` or `ABORT`, which any worker applies). While no worker has taken
 * the session (still `queued` after `noWorkerHintMs`), says so on stderr with the command that starts
 * one, and keeps waiting: the prompt is stored, a worker started later serves it.
 * Contract: async; rejects when the database cannot be reached.
 * Resolves with 0, or 1 when the last reply ended in an error.
 *
 * ```ts
 * declare const io: Parameters<typeof runSubmitCommand>[2]; // the terminal's streams
 * const code = await runSubmitCommand("Why is the build red?", { databaseUrl: process.env.DATABASE_URL! }, io);
 * ```
 */
export async function runSubmitCommand(
  prompt: string,
  options: SubmitCommandOptions,
  io: RunIo,
): Promise<number> {
  const { createClient } = await import("../postgres/client.js");
  const client = await createClient({ connectionString: options.databaseUrl });
  const style = terminalStyle(io.stdout);
  const asker = lineAsker(io.stdin, io.stderr);
  const sessionId = options.session ?? createSessionId();
  const unanswered = new Map<string, string>();
  /** The pauses asked about (by their JSON): one listed again while its answer is on the way is not asked twice. */
  const askedPauses = new Set<string>();
  /** The questions at budget pauses, one after the other. */
  let budgetAnswers: Promise<void> = Promise.resolve();
  let failed = false;
  const print = (entry: SessionEntry) => {
    if (entry.type !== "message") return;
    const message = entry.message;
    if (message.role === "assistant") {
      for (const block of message.content) {
        if (block.type === "text") io.stdout.write(`${block.text}\n`);
        else if (block.type === "toolCall") {
          unanswered.set(block.id, block.name);
          io.stdout.write(
            `${style.dim(`→ ${block.name} ${abbreviate(JSON.stringify(block.arguments), 80)}`)}\n`,
          );
        }
      }
      failed = message.stopReason === "error";
      if (message.errorMessage) io.stdout.write(`${style.yellow(message.errorMessage)}\n`);
    } else if (message.role === "toolResult") {
      unanswered.delete(message.toolCallId);
      const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      io.stdout.write(`${style.dim(`← ${message.toolName}: ${abbreviate(text, 80)}`)}\n`);
    }
  };
  try {
    const { afterSeq } = await client.submit(sessionId, prompt, { cwd: io.cwd });
    const errorStyle = terminalStyle(io.stderr);
    io.stderr.write(`${errorStyle.dim(`session ${sessionId} (queued)`)}\n`);
    const hintMs = options.noWorkerHintMs ?? 3_000;
    const hint = setTimeout(
      () => io.stderr.write(errorStyle.yellow(noWorkerHint(sessionId, options.databaseUrl, hintMs))),
      hintMs,
    );
    await new Promise<void>((resolve, reject) => {
      const subscription = client.watch(sessionId, { afterSeq }).subscribe({
        next: (update) => {
          // Entries or a state other than `queued`: a worker has taken the session.
          if (update.type === "entry" || update.state !== "queued") clearTimeout(hint);
          if (update.type === "entry") print(update.entry);
          else if (update.state === "idle") {
            subscription.unsubscribe();
            resolve();
          } else if (update.state === "awaiting_approval") {
            void answerApprovals().catch(reject);
          } else if (update.state === "awaiting_budget") {
            budgetAnswers = budgetAnswers.then(answerBudgetPauses).catch(reject);
          }
        },
        error: reject,
      });
    }).finally(() => clearTimeout(hint));
    return failed ? 1 : 0;
  } finally {
    asker.close();
    await client.close();
  }

  /**
   * The run is parked at budget limits or loop breakers (the root's, or sub-agents' at any depth): for
   * each run waiting at one not asked about yet, asks the person — `r` raises that limit (to twice
   * its value, or to the number after it: `r 50`), `c` lets the held call through once, anything else
   * stops the whole run — and sends the command (`RAISE_BUDGET`, `CONTINUE_ONCE` with the sub-agent's
   * `agentPath`, or `ABORT`). A sub-agent is named by its path's call ids.
   */
  async function answerBudgetPauses(): Promise<void> {
    const warn = (line: string) => io.stderr.write(`${terminalStyle(io.stderr).yellow(line)}\n`);
    for (const paused of await client.awaitingBudget(sessionId)) {
      const key = JSON.stringify(paused);
      if (askedPauses.has(key)) continue;
      askedPauses.add(key);
      const where = paused.agentPath ? ` (sub-agent ${paused.agentPath.join(" › ")})` : "";
      const ask = async () =>
        pauseAnswer(await asker.ask(pauseQuestion(paused, where)), paused, addressOf(paused));
      let command = await ask();
      while (typeof command === "string") {
        warn(command);
        command = await ask();
      }
      try {
        await client.send(sessionId, command);
      } catch (error) {
        // A run that stopped waiting meanwhile: one line, no crash.
        if (!isCommandError(error)) throw error;
        warn(error.message);
      }
      if (command.type === "ABORT") return; // the whole run stops: nothing else to ask
    }
  }

  async function answerApprovals(): Promise<void> {
    for (const [toolCallId, toolName] of unanswered) {
      const answer = await asker.ask(`allow ${toolName} (${toolCallId})? [y/N] `);
      if (answer !== undefined && /^y(es)?$/i.test(answer.trim()))
        await client.approve(sessionId, toolCallId);
      else await client.deny(sessionId, toolCallId, "The user denied this tool call");
    }
  }
}
