import { filter, firstValueFrom } from "rxjs";
import { AgentHarness } from "../../src/harness/agent-harness.js";
import type {
  CompactionPort,
  CompactionSettings,
  SummaryRequest,
} from "../../src/harness/compaction/port.js";
import type { AgentHarnessOptions } from "../../src/harness/harness-options.js";
import type { HarnessEvent } from "../../src/harness/hooks.js";
import { type ScriptedTurn, scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { SessionEntry } from "../../src/storage/entries.js";
import { MemorySessionRepo } from "../../src/storage/memory-session-repo.js";
import type { Session } from "../../src/storage/session.js";
import type { AgentMessage, AssistantMessage } from "../../src/types/messages.js";
import type { LlmContext } from "../../src/types/stream.js";
import { collectEvents } from "./collect-events.js";
import { testModel } from "./loop-harness.js";

export { testModel };

/** Roles of a transcript, for compact assertions. */
export const roles = (messages: readonly AgentMessage[]) => messages.map((message) => message.role);

/** Text of every message (user string/text parts, assistant text, summaries), for assertions. */
export function texts(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => {
    switch (message.role) {
      case "user":
        return typeof message.content === "string"
          ? message.content
          : message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("");
      case "assistant":
        return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
      case "toolResult":
        return message.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("");
      case "compactionSummary":
      case "branchSummary":
        return message.summary;
      default:
        return `[${message.role}]`;
    }
  });
}

/** The user texts a scripted request carried. */
export function requestUserTexts(context: LlmContext): string[] {
  return texts(context.messages.filter((message) => message.role === "user"));
}

/** A harness on a fresh in-memory session, with its events recorded. */
export async function createHarness(
  turns: ScriptedTurn[],
  options: Partial<AgentHarnessOptions> = {},
): Promise<{
  harness: AgentHarness;
  model: ReturnType<typeof scriptedModel>;
  session: Session;
  events: HarnessEvent[];
}> {
  const session = options.session ?? (await new MemorySessionRepo().create({ cwd: "/work" }));
  const model = scriptedModel(turns);
  const harness = new AgentHarness({
    model: testModel,
    streamFn: model,
    retry: { maxRetries: 3, baseDelayMs: 0, maxDelayMs: 0 },
    ...options,
    session,
  });
  const events: HarnessEvent[] = [];
  harness.events$.subscribe((event) => events.push(event));
  return { harness, model, session, events };
}

/** Resolves at the first harness event of this type. */
export function nextEvent<T extends HarnessEvent["type"]>(harness: AgentHarness, type: T) {
  return firstValueFrom(
    harness.events$.pipe(filter((event): event is Extract<HarnessEvent, { type: T }> => event.type === type)),
  );
}

/** Resolves when the harness enters `phase`. */
export function phaseReached(harness: AgentHarness, phase: string): Promise<unknown> {
  return firstValueFrom(harness.phase$.pipe(filter((value) => value === phase)));
}

/** Messages on the session's current branch, as `buildContext` returns them. */
export const sessionMessages = (session: Session) => session.buildContext().messages;

/** The assistant's text. */
export const replyText = (message: AssistantMessage) => texts([message])[0];

// ---------------------------------------------------------------------------------------------
// Compaction stand-in: a small, honest implementation of the compaction port for the harness tests
// (the real one is delivered in src/harness/compaction/). Summaries are produced by the StreamFn it
// is given — in the tests a scripted "summariser" turn.

const estimate = (message: AgentMessage) => Math.ceil(JSON.stringify(message).length / 4);

async function summarise(request: SummaryRequest, kind: string, messages: AgentMessage[]): Promise<string> {
  const prompt = `Summarise this ${kind}${request.customInstructions ? ` (${request.customInstructions})` : ""}:\n${texts(messages).join("\n")}`;
  const reply = await collectEvents(
    request.streamFn(
      request.model,
      {
        systemPrompt: "You are a summariser.",
        messages: [{ role: "user", content: prompt, timestamp: Date.now() }],
        tools: [],
      },
      { signal: request.signal },
    ),
  );
  if (reply.message.stopReason !== "stop")
    throw new Error(`Summarization failed: ${reply.message.errorMessage}`);
  return texts([reply.message])[0] ?? "";
}

interface StandInPreparation {
  firstKeptEntryId: string;
  tokensBefore: number;
  messagesToSummarize: AgentMessage[];
}

/** The stand-in port; `calls` records which functions ran. */
export function standInCompaction(): CompactionPort & { calls: string[] } {
  const calls: string[] = [];
  const messageOf = (entry: SessionEntry) => (entry.type === "message" ? entry.message : undefined);
  return {
    calls,
    estimateContextTokens: (messages) => ({ tokens: messages.reduce((sum, m) => sum + estimate(m), 0) }),
    shouldCompact: (tokens: number, window: number, settings: CompactionSettings) =>
      settings.enabled && tokens > window - settings.reserveTokens,
    prepareCompaction(entries): StandInPreparation | undefined {
      calls.push("prepareCompaction");
      if (entries.length === 0 || entries.at(-1)?.type === "compaction") return undefined;
      // Keep from the last user message on; summarise what came before it.
      const lastUser = entries.findLastIndex((entry) => messageOf(entry)?.role === "user");
      const cut = Math.max(lastUser, 0);
      const messages = entries.flatMap((entry) => messageOf(entry) ?? []);
      return {
        firstKeptEntryId: entries[cut]!.id,
        tokensBefore: messages.reduce((sum, m) => sum + estimate(m), 0),
        messagesToSummarize: entries.slice(0, cut).flatMap((entry) => messageOf(entry) ?? []),
      };
    },
    async compact(preparation, request) {
      calls.push("compact");
      const prep = preparation as StandInPreparation;
      const summary = await summarise(request, "conversation", prep.messagesToSummarize);
      return {
        summary,
        firstKeptEntryId: prep.firstKeptEntryId,
        tokensBefore: prep.tokensBefore,
        details: { standIn: true },
      };
    },
    collectEntriesForBranchSummary(session, oldLeafId, targetId) {
      calls.push("collectEntriesForBranchSummary");
      if (!oldLeafId) return [];
      const targetPath = new Set(session.getBranch(targetId).map((entry) => entry.id));
      return session.getBranch(oldLeafId).filter((entry) => !targetPath.has(entry.id));
    },
    async generateBranchSummary(entries, request) {
      calls.push("generateBranchSummary");
      const summary = await summarise(
        request,
        "branch",
        entries.flatMap((entry) => messageOf(entry) ?? []),
      );
      return { summary, details: { entries: entries.length } };
    },
  };
}

/** A scripted summariser turn: replies with `summary` when asked to summarise. */
export function summariserTurn(summary: string): ScriptedTurn {
  return (context) => {
    const asked = texts(context.messages)[0] ?? "";
    if (!asked.startsWith("Summarise"))
      return { error: `expected a summary request, got: ${asked.slice(0, 40)}` };
    return { text: summary };
  };
}
