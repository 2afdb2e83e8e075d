import { createInterface } from "node:readline";
import type { Subscription } from "rxjs";
import type { AgentHarness } from "../harness/agent-harness.js";
import { isAgentHarnessError } from "../harness/errors.js";
import { expandPromptTemplate, parseTemplateArgs } from "../harness/resources/prompt-templates.js";
import { userMessage } from "../loop/messages.js";
import type { McpConnection } from "../mcp/connect-mcp-servers.js";
import type { BudgetLimits } from "../types/budget.js";
import { errorText } from "../types/error-text.js";
import { THINKING_LEVELS, type ThinkingLevel } from "../types/model.js";
import { watchBudget } from "./budget-watch.js";
import type { CliHarness } from "./cli-harness.js";
import type { EventRenderer } from "./event-renderer.js";
import { describeMcpServers } from "./mcp-setup.js";
import { withModelId } from "./model-choice.js";
import type { CliResources } from "./resources.js";
import { sendCommand } from "./send-command.js";
import { renderTree } from "./session-view.js";
import type { TerminalStyle } from "./terminal-style.js";
import { type AskLine, askForToolApprovals } from "./tool-approvals.js";

/** The prompt the REPL prints when it is ready for the next line (tests wait for it). */
export const REPL_PROMPT = "agentchart> ";

/** How many lines of a new compaction summary `/compact` shows. */
const SUMMARY_PREVIEW_LINES = 6;

const HELP = [
  "/tree [entry]       the session tree (branches, labels, current leaf); with an entry, continue from there",
  "/fork [entry]       continue in a new session forked at an entry (default: the leaf)",
  "/compact [focus]    summarise older messages to free context (focus: what the summary should keep)",
  "/model [id]         show or switch the model",
  "/thinking [level]   show or switch the thinking level (off, minimal, low, medium, high, xhigh)",
  "/skills             list the loaded skills; /skill:<name> [extra] runs one",
  "/templates          list the prompt templates; /<name> args… sends one",
  "/agents             list the sub-agents (.agentchart/agents/*.md) the model may call as tools",
  "/mcp                the MCP servers: state, transport, tools",
  "/quit               leave (also Ctrl-D; Ctrl-C twice)",
  "Ctrl-C aborts the running turn. Lines typed while a turn runs steer it (piped input runs line by line).",
];

/** What the REPL works with. */
export interface ReplOptions {
  /** The harness the REPL drives (`current`; `/fork` replaces it). */
  harness: CliHarness;
  renderer: EventRenderer;
  resources: CliResources;
  /** The connected MCP servers (`/mcp`); their tools' approvals are asked in the REPL. */
  mcp?: McpConnection | undefined;
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  style: TerminalStyle;
  /** The budget the CLI set (`--budget`): the status line shows usage against it. */
  budget?: BudgetLimits;
}

/**
 * The interactive loop: reads lines, sends prompts to the harness (rendered as they stream), runs
 * slash commands; approvals, budget answers, steering lines and Ctrl-C are commands sent to the
 * harness, and one it refuses is printed as one line. Resolves with the exit code when input ends or
 * on `/quit`.
 */
export function runRepl(options: ReplOptions): Promise<number> {
  const { renderer, resources, output, style } = options;
  const cli = options.harness;
  const print = (line = ""): void => {
    output.write(`${line}\n`);
  };
  const report = (line: string) => print(style.red(line));
  const rl = createInterface({
    input: options.input,
    output,
    prompt: REPL_PROMPT,
    terminal: options.input.isTTY === true && output.isTTY === true,
  });
  let busy = false;
  let interrupts = 0;
  let work: Promise<void> = Promise.resolve();

  const commands: Record<string, (arg: string) => Promise<void> | void> = {
    help: () => {
      for (const line of HELP) print(line);
    },
    tree: async (arg) => {
      const session = cli.session;
      if (!session) return print("no session (--no-session)");
      if (arg !== "") {
        const moved = await cli.current.navigateTree(arg);
        print(`now at ${session.leafId ?? "the start"} (${cli.current.state.messages.length} messages)`);
        if (moved.editorText !== undefined)
          print(style.dim(`that entry was your prompt: ${moved.editorText}`));
        return;
      }
      if (session.getEntries().length === 0) return print("(empty)");
      for (const line of renderTree(session, style)) print(line);
    },
    fork: async (arg) => {
      const forked = await cli.fork(arg === "" ? undefined : arg);
      following.unsubscribe();
      following = follow(forked);
      print(`forked: now in session ${forked.session.id} (${forked.state.messages.length} messages)`);
    },
    compact: async (arg) => {
      const outcome = await compactNow(cli.current, arg === "" ? undefined : arg);
      if (!outcome.compacted) return print(style.yellow(`not compacted: ${outcome.reason}`));
      print(`compacted (${outcome.tokensBefore} tokens before); the summary begins:`);
      const lines = outcome.summary.split("\n").filter((line) => line.trim() !== "");
      for (const line of lines.slice(0, SUMMARY_PREVIEW_LINES)) print(style.dim(`  ${line}`));
      if (lines.length > SUMMARY_PREVIEW_LINES) {
        print(style.dim(`  … ${lines.length - SUMMARY_PREVIEW_LINES} more lines`));
      }
    },
    model: async (arg) => {
      const harness = cli.current;
      if (arg !== "") {
        harness.send({ type: "SET_MODEL", model: withModelId(harness.state.model, arg) });
        await harness.session.flush();
      }
      print(`model ${harness.state.model.provider}/${harness.state.model.id}`);
    },
    thinking: async (arg) => {
      const harness = cli.current;
      if (arg !== "") {
        if (!THINKING_LEVELS.includes(arg as ThinkingLevel))
          return print(style.red(`unknown thinking level "${arg}" (use ${THINKING_LEVELS.join(", ")})`));
        harness.send({ type: "SET_THINKING_LEVEL", thinkingLevel: arg as ThinkingLevel });
        await harness.session.flush();
      }
      print(`thinking ${harness.state.thinkingLevel}`);
    },
    skills: () => {
      if (resources.skills.length === 0) return print("no skills (add them to .agentchart/skills)");
      for (const skill of resources.skills) print(`${style.bold(skill.name)}  ${skill.description}`);
    },
    agents: () => {
      if (resources.agents.length === 0) return print("no sub-agents (add them to .agentchart/agents)");
      for (const agent of resources.agents) print(`${style.bold(agent.name)}  ${agent.description}`);
    },
    mcp: () => {
      for (const line of describeMcpServers(options.mcp)) print(line);
    },
    templates: () => {
      if (resources.templates.length === 0)
        return print("no prompt templates (add them to .agentchart/prompts)");
      for (const template of resources.templates) {
        const hint = template.argumentHint === undefined ? "" : ` ${template.argumentHint}`;
        print(`${style.bold(`/${template.name}${hint}`)}  ${template.description}`);
      }
    },
  };

  const sendPrompt = async (text: string) => {
    await cli.current.prompt(text);
  };

  const handleLine = async (line: string) => {
    const text = line.trim();
    if (text === "") return;
    if (!text.startsWith("/")) return sendPrompt(text);
    const [, name = "", arg = ""] = /^\/(\S*)\s*(.*)$/s.exec(text) ?? [];
    if (name === "quit" || name === "exit") {
      rl.close();
      return;
    }
    const command = commands[name];
    if (command) return command(arg.trim());
    if (name.startsWith("skill:")) {
      await cli.current.skill(name.slice("skill:".length), arg.trim() === "" ? undefined : arg.trim());
      return;
    }
    const template = resources.templates.find((candidate) => candidate.name === name);
    if (template) return sendPrompt(expandPromptTemplate(template, parseTemplateArgs(arg)));
    print(style.red(`unknown command /${name} (/help lists the commands)`));
  };

  const onInterrupt = () => {
    interrupts++;
    if (interrupts >= 2) {
      print();
      rl.close();
      return;
    }
    if (cli.current.isRunning) {
      print(style.yellow("\n(aborting the turn; Ctrl-C again exits)"));
      sendCommand(cli.current, { type: "ABORT" }, report);
    } else {
      print(style.dim("\n(Ctrl-C again exits, or type /quit)"));
      rl.prompt();
    }
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);

  const pending: string[] = [];
  const steerWhileRunning = options.input.isTTY === true;
  const drain = () => {
    const line = pending.shift();
    if (line === undefined) {
      busy = false;
      if (!closed) rl.prompt();
      return;
    }
    busy = true;
    work = handleLine(line)
      .catch((error: unknown) => print(style.red(`error: ${errorText(error)}`)))
      .finally(() => {
        interrupts = 0;
        drain();
      });
  };

  // A tool call waiting for approval takes the next line (or one already queued) as the answer.
  let answer: ((line: string | undefined) => void) | undefined;
  const ask: AskLine = (question) => {
    output.write(style.yellow(question));
    const queued = pending.shift();
    if (queued !== undefined) {
      output.write(`${queued}\n`);
      return Promise.resolve(queued);
    }
    return new Promise((resolve) => {
      answer = resolve;
    });
  };
  /** Renders the harness's events and answers its questions until unsubscribed (`/fork` follows the new one). */
  const follow = (harness: AgentHarness): Subscription => {
    const subscription = harness.events$.subscribe((event) => renderer.render(event));
    subscription.add(harness.phase$.subscribe((phase) => renderer.renderPhase(phase)));
    subscription.add(askForToolApprovals(harness, ask, report));
    // A run paused at a budget limit takes the next line too (raise, continue once, stop).
    subscription.add(
      watchBudget(harness, { ask, write: (line) => print(style.dim(line)), limits: options.budget ?? {} }),
    );
    // A question still open when the run ends (aborted) is stale: the next line is a prompt again.
    subscription.add(
      harness.phase$.subscribe((phase) => {
        if (phase !== "idle" || !answer) return;
        const resolve = answer;
        answer = undefined;
        output.write("\n");
        resolve(undefined);
      }),
    );
    return subscription;
  };
  let following = follow(cli.current);

  rl.on("line", (line) => {
    interrupts = 0;
    if (answer) {
      const resolve = answer;
      answer = undefined;
      resolve(line);
      return;
    }
    const text = line.trim();
    // Typed by a person while the model works: steer the turn. Piped input runs line by line.
    if (busy && steerWhileRunning && cli.current.isRunning && text !== "" && !text.startsWith("/")) {
      if (sendCommand(cli.current, { type: "STEER", message: userMessage(text) }, report))
        print(style.dim("(queued as a steering message)"));
      return;
    }
    pending.push(line);
    if (!busy) drain();
  });

  let closed = false;
  return new Promise((resolve) => {
    rl.on("close", () => {
      closed = true;
      answer?.(undefined);
      answer = undefined;
      process.off("SIGINT", onInterrupt);
      if (cli.current.isRunning && interrupts >= 2) sendCommand(cli.current, { type: "ABORT" }, report);
      if (interrupts >= 2) pending.length = 0;
      const settled = async () => {
        while (busy) await work;
      };
      void settled().then(() => {
        following.unsubscribe();
        renderer.dispose();
        resolve(interrupts >= 2 ? 130 : 0);
      });
    });
    rl.prompt();
  });
}

/** What `/compact` got: a summary, or why nothing was compacted (a failed compaction included). */
type CompactOutcome =
  | { compacted: true; summary: string; tokensBefore: number }
  | { compacted: false; reason: string };

/** `/compact`: the harness's compaction now; "nothing to compact" and a failed one are outcomes. */
async function compactNow(harness: AgentHarness, instructions: string | undefined): Promise<CompactOutcome> {
  try {
    const result = await harness.compact(instructions);
    return result.compacted ? result : { compacted: false, reason: "Nothing to compact" };
  } catch (error) {
    if (isAgentHarnessError(error, "compaction")) return { compacted: false, reason: error.message };
    throw error;
  }
}
