import { z } from "zod";
import type { PersistedAgent } from "../agent/agent-snapshot.js";
import { issuesText } from "../agent/persisted-agent-format.js";
import type { HarnessPhase } from "../machines/harness/harness.machine.js";
import type { AgentMessage } from "../types/messages.js";
import { AgentHarnessError } from "./errors.js";
import type { PersistedSubAgent } from "./sub-agent-sessions.js";

export const HARNESS_SNAPSHOT_FORMAT = "agentchart.harness";
export const HARNESS_SNAPSHOT_VERSION = 1;

/**
 * A persisted harness: its phase, the operation in progress and the queues, made by
 * `harness.persist()`. The session holds everything else (transcript, model, tools, compactions).
 */
export interface PersistedHarness {
  format: typeof HARNESS_SNAPSHOT_FORMAT;
  version: typeof HARNESS_SNAPSHOT_VERSION;
  sessionId: string;
  phase: HarnessPhase;
  /** A compaction in progress (asked for, or automatic within a prompt) and its instructions. */
  compaction?: { instructions?: string };
  queues: { steering: AgentMessage[]; followUp: AgentMessage[]; nextTurn: AgentMessage[] };
  /**
   * The agent itself (`agent.persist()`), kept when a turn was running a sub-agent or a call waited for
   * approval: its session cannot tell where a child stood or which call waits, so a restore goes on
   * from this snapshot at every depth, its waiting calls listed in `awaitingApproval` at once.
   */
  agent?: PersistedAgent;
  /** The sub-agents that were running and their sessions, reopened by a restore (with `agent`). */
  subAgents?: PersistedSubAgent[];
}

// `.passthrough()` (zod 4's `.loose()`) exists in zod 3 too: an app with zod 3 (npm's
// --legacy-peer-deps) must be able to import agentchart and be told by defineTool what to install.
const queuedMessage = z.object({ role: z.string() }).passthrough();

/** The schema of a persisted harness (version 1); its phases are listed one by one. */
const persistedHarnessSchema = z
  .object({
    format: z.literal(HARNESS_SNAPSHOT_FORMAT),
    version: z.literal(HARNESS_SNAPSHOT_VERSION),
    sessionId: z.string().min(1),
    phase: z.enum(["idle", "turn", "compaction", "branchSummary", "retry"]),
    compaction: z.object({ instructions: z.string().optional() }).optional(),
    queues: z.object({
      steering: z.array(queuedMessage),
      followUp: z.array(queuedMessage),
      nextTurn: z.array(queuedMessage),
    }),
    agent: z.object({}).passthrough().optional(),
    subAgents: z
      .array(z.object({ agentPath: z.array(z.string()).min(1), sessionId: z.string().min(1).optional() }))
      .optional(),
  })
  .passthrough();

/** What a restored harness does first, by the phase it was persisted in. */
export type HarnessResumeStep = "none" | "compact" | "resume" | "restoreAgent";

/** Reads a persisted harness (object or JSON text). Throws `AgentHarnessError("invalid_state")` when it is not one. */
export function parsePersistedHarness(input: string | PersistedHarness): PersistedHarness {
  let data: unknown = input;
  if (typeof input === "string") {
    try {
      data = JSON.parse(input);
    } catch (error) {
      throw new AgentHarnessError(
        "invalid_state",
        `The persisted harness is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  const candidate = data as Partial<PersistedHarness> | null;
  if (candidate?.format !== HARNESS_SNAPSHOT_FORMAT || candidate.version !== HARNESS_SNAPSHOT_VERSION)
    throw new AgentHarnessError(
      "invalid_state",
      `Not a persisted harness of version ${HARNESS_SNAPSHOT_VERSION} (format "${HARNESS_SNAPSHOT_FORMAT}")`,
    );
  const checked = persistedHarnessSchema.safeParse(candidate);
  if (!checked.success)
    throw new AgentHarnessError(
      "invalid_state",
      `Malformed persisted harness: ${issuesText(checked.error.issues)}`,
    );
  return candidate as PersistedHarness;
}

/**
 * The first step of a restored harness: a harness persisted mid-compaction (or mid-branch-summary)
 * compacts again; one persisted mid-turn or while waiting to retry finishes the interrupted run from its
 * session (`harness.resume()`, which follows each tool's `replay` policy) — or, when a sub-agent was
 * running, from its persisted agent (`restoreAgent`); an idle one does nothing.
 */
export function resumeStepOf(persisted: PersistedHarness): HarnessResumeStep {
  if (persisted.compaction) return "compact";
  if (persisted.agent) return "restoreAgent";
  if (persisted.phase === "turn" || persisted.phase === "retry") return "resume";
  return "none";
}
