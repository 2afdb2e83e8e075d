import type { HarnessEvent } from "../harness/hooks.js";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import type { AssistantMessage } from "../types/messages.js";
import type { ToolResult } from "../types/tool.js";
import { AgentPathLabels, agentPathKey, agentPathOf } from "./agent-path-labels.js";
import type { TerminalStyle } from "./terminal-style.js";

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Longest arguments text shown on a tool call's line. */
const ARGUMENTS_PREVIEW_CHARS = 80;
/** The owner of the open line when it is the spinner's (cleared, not ended, when another line starts). */
const SPINNER_LINE = "\u0000spinner";

/** Where the renderer writes; `isTTY` switches the spinner on. */
export interface RenderTarget {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Renders AgentEvents and harness events for a person: streamed text, thinking dimmed, on a terminal
 * a line that grows with a tool call's arguments while the model streams them, one line per tool
 * call with a spinner while it runs (on a terminal) and a short result summary when it settles,
 * a note for error and aborted replies, retries dimmed, automatic compactions and their failures.
 * `renderPhase` shows when the harness starts compacting.
 *
 * A sub-agent's events (they carry `agentPath`) are drawn under the call that runs it: every line
 * they write starts with two spaces per level of depth and the sub-agent's name (`  code-reviewer› `,
 * `research#2› ` for a second call of the same agent tool, see `AgentPathLabels`). A line belongs to
 * one agent: when another agent writes while it is open, the line ends and a new one starts with the
 * other's prefix, so the deltas of parallel children interleave line by line and stay attributable.
 * The live arguments line is drawn for the root's calls only; a sub-agent's calls show when they run.
 */
export class EventRenderer {
  readonly #out: RenderTarget;
  readonly #style: TerminalStyle;
  /** What each running call's line shows, by the call's path (its agent's path and its id). */
  readonly #running = new Map<string, string>();
  readonly #labels = new AgentPathLabels();
  /** The root's tool call whose arguments line is drawn, and what it shows. */
  #argumentsLine: { contentIndex: number; text: string } | undefined;
  #atLineStart = true;
  /** Who wrote the open line (unless at a line start): an agent's path key, or `SPINNER_LINE`. */
  #lineOwner = "";
  #spinner: ReturnType<typeof setInterval> | undefined;
  #frame = 0;

  constructor(out: RenderTarget, style: TerminalStyle) {
    this.#out = out;
    this.#style = style;
  }

  render(event: HarnessEvent): void {
    const path = agentPathOf(event);
    switch (event.type) {
      case "retry":
        this.#line(
          this.#style.dim(
            `retrying in ${formatDelay(event.delayMs)} (attempt ${event.attempt}/${event.maxRetries}): ${abbreviate(event.errorMessage, 100)}`,
          ),
        );
        break;
      case "session_compact":
        if (event.reason !== "manual") {
          const why = event.reason === "overflow" ? "the context overflowed" : "the context is nearly full";
          this.#line(
            this.#style.dim(`compacted (${why}; ${event.compactionEntry.tokensBefore} tokens before)`),
          );
        }
        break;
      case "compaction_failed":
        this.#line(this.#style.yellow(`compaction failed: ${event.errorMessage}`));
        break;
      case "message_update": {
        const update = event.assistantMessageEvent;
        if (update.type === "thinking_start" || update.type === "text_start") this.#newLine();
        else if (update.type === "thinking_delta") this.#write(this.#style.dim(update.delta), path);
        else if (update.type === "text_delta") this.#write(update.delta, path);
        else if (path.length > 0) break;
        else if (update.type === "toolcall_delta")
          this.#drawArgumentsLine(update.partial, update.contentIndex);
        else if (update.type === "toolcall_end") this.#clearArgumentsLine();
        break;
      }
      case "message_end": {
        const message = event.message as { role?: string; stopReason?: string; errorMessage?: string };
        if (message.role !== "assistant") break;
        if (path.length === 0) this.#argumentsLine = undefined; // a reply that failed mid-call keeps its line
        this.#endLineOf(path);
        if (message.stopReason === "aborted") this.#line(this.#style.yellow("(aborted)"), path);
        else if (message.stopReason === "error") {
          this.#line(this.#style.red(`error: ${message.errorMessage ?? "the model failed"}`), path);
        }
        break;
      }
      case "tool_execution_start": {
        this.#newLine();
        const label = `${event.toolName} ${abbreviate(JSON.stringify(event.args), 80)}`;
        this.#running.set(agentPathKey([...path, event.toolCallId]), label);
        if (this.#out.isTTY) this.#startSpinner();
        else this.#line(this.#style.yellow(`⚙ ${label}`), path);
        break;
      }
      case "tool_execution_end": {
        const key = agentPathKey([...path, event.toolCallId]);
        const label = this.#running.get(key) ?? event.toolName;
        this.#running.delete(key);
        this.#clearSpinnerLine();
        const summary = summarizeResult(event.result as ToolResult, event.isError);
        const mark = event.isError ? this.#style.red("✗") : this.#style.green("✓");
        this.#line(`${mark} ${label} ${this.#style.dim(`→ ${summary}`)}`, path);
        if (this.#running.size === 0) this.#stopSpinner();
        else this.#drawSpinner();
        break;
      }
      case "agent_end":
        if (path.length > 0) {
          this.#endLineOf(path);
          break;
        }
        this.#stopSpinner();
        this.#newLine();
        break;
    }
    this.#labels.observe(event);
  }

  /** Shows phase changes a person should know about: compacting. */
  renderPhase(phase: HarnessPhase): void {
    if (phase === "compaction") this.#line(this.#style.dim("compacting…"));
  }

  /** Stops the spinner (e.g. before the process exits). */
  dispose(): void {
    this.#stopSpinner();
  }

  /**
   * Redraws the streaming call's line (terminal only) with the arguments parsed so far. Once the
   * preview is cut at its width, later deltas only change what is cut off, so they are not parsed.
   */
  #drawArgumentsLine(message: AssistantMessage, contentIndex: number): void {
    if (!this.#out.isTTY) return;
    const shown = this.#argumentsLine;
    if (shown?.contentIndex === contentIndex && shown.text.endsWith("…")) return;
    const call = message.content[contentIndex];
    if (call?.type !== "toolCall") return;
    const text = abbreviate(JSON.stringify(call.arguments), ARGUMENTS_PREVIEW_CHARS);
    if (shown?.contentIndex === contentIndex && shown.text === text) return;
    if (shown === undefined) this.#newLine();
    this.#argumentsLine = { contentIndex, text };
    this.#out.write(`\r\x1b[2K${this.#style.yellow("⚙")} ${this.#style.dim(`${call.name} ${text}`)}`);
    this.#atLineStart = false;
    this.#lineOwner = agentPathKey([]); // the root's: a reply that fails mid-call keeps it
  }

  /** Removes the arguments line: the call's own line follows when it runs. */
  #clearArgumentsLine(): void {
    if (this.#argumentsLine === undefined) return;
    this.#argumentsLine = undefined;
    this.#out.write("\r\x1b[2K");
    this.#atLineStart = true;
  }

  /**
   * Writes `text` for the agent at `path` (default: the root): an open line of another agent ends
   * first, and every line the text starts gets the agent's prefix.
   */
  #write(text: string, path: readonly string[] = []): void {
    if (text === "") return;
    const owner = agentPathKey(path);
    if (!this.#atLineStart && this.#lineOwner !== owner) this.#newLine();
    const prefix = this.#prefixOf(path);
    let out = "";
    const pieces = text.split("\n");
    pieces.forEach((piece, index) => {
      if (piece !== "") {
        if (this.#atLineStart) out += prefix;
        out += piece;
        this.#atLineStart = false;
      }
      if (index < pieces.length - 1) {
        out += "\n";
        this.#atLineStart = true;
      }
    });
    this.#out.write(out);
    this.#lineOwner = owner;
  }

  /** Nothing for the root; two spaces per level and the sub-agent's name for a descendant. */
  #prefixOf(path: readonly string[]): string {
    if (path.length === 0) return "";
    return `${"  ".repeat(path.length)}${this.#style.dim(`${this.#labels.label(path)}›`)} `;
  }

  #line(text: string, path: readonly string[] = []): void {
    this.#newLine();
    this.#write(`${text}\n`, path);
  }

  /** Ends the open line: the spinner's is cleared, a text line gets its newline. */
  #newLine(): void {
    if (this.#atLineStart) return;
    if (this.#lineOwner === SPINNER_LINE) {
      this.#out.write("\r\x1b[2K");
      this.#atLineStart = true;
    } else {
      this.#out.write("\n");
      this.#atLineStart = true;
    }
  }

  /** Ends the open line if the agent at `path` wrote it (its reply or run ended). */
  #endLineOf(path: readonly string[]): void {
    if (!this.#atLineStart && this.#lineOwner === agentPathKey(path)) this.#newLine();
  }

  #startSpinner(): void {
    this.#drawSpinner();
    this.#spinner ??= setInterval(() => {
      this.#frame = (this.#frame + 1) % SPINNER_FRAMES.length;
      this.#drawSpinner();
    }, 80);
  }

  #drawSpinner(): void {
    if (!this.#out.isTTY || this.#running.size === 0) return;
    // A sub-agent's text line is open: the spinner comes back once the line is done.
    if (!this.#atLineStart && this.#lineOwner !== SPINNER_LINE) return;
    const labels = [...this.#running.values()].join(", ");
    this.#out.write(
      `\r\x1b[2K${this.#style.yellow(SPINNER_FRAMES[this.#frame] ?? "")} ${abbreviate(labels, 100)}`,
    );
    this.#atLineStart = false;
    this.#lineOwner = SPINNER_LINE;
  }

  #clearSpinnerLine(): void {
    if (!this.#out.isTTY || this.#spinner === undefined) return;
    if (this.#atLineStart || this.#lineOwner !== SPINNER_LINE) return;
    this.#out.write("\r\x1b[2K");
    this.#atLineStart = true;
  }

  #stopSpinner(): void {
    if (this.#spinner === undefined) return;
    this.#clearSpinnerLine();
    clearInterval(this.#spinner);
    this.#spinner = undefined;
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** "12 lines", "error: <first line>", "image" — what a tool returned, in a few words. */
export function summarizeResult(result: ToolResult | undefined, isError: boolean): string {
  const blocks = result?.content ?? [];
  const text = blocks
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
  if (isError) return `error: ${abbreviate(text.split("\n")[0] ?? "", 100)}`;
  const images = blocks.filter((block) => block.type === "image").length;
  const lines = text === "" ? 0 : text.split("\n").length;
  const parts = [`${lines} line${lines === 1 ? "" : "s"}`];
  if (images > 0) parts.push(`${images} image${images === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** Cuts `text` to `max` characters (one line), marking the cut with "…". */
export function abbreviate(text: string, max: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
