import { createScorer, type Scorer } from "../scorer.js";
import type { StatePathStep } from "../state-path.js";

/** A check of a run's state path: the problem found, or undefined when the path is fine. */
export type StatePathCheck = (path: readonly StatePathStep[]) => string | undefined;

/** Which actors a check looks at: one actor's name (`"agent"`, a tool call id), or every actor. */
export interface ActorFilter {
  actor?: string;
}

/** Whether `state` is `name` or one of its descendants (`"running"` covers `"running.streaming"`). */
function isIn(state: string, name: string): boolean {
  return (
    state === name ||
    state.startsWith(`${name}.`) ||
    state.includes(`.${name}.`) ||
    state.endsWith(`.${name}`)
  );
}

const forActor = (filter: ActorFilter) => (step: StatePathStep) =>
  filter.actor === undefined || step.actor === filter.actor;

/**
 * Passes when some actor (or `filter.actor`) entered the state `name` (a state key or dotted path; a
 * parent covers its children).
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * statePath("asked for approval", enters("awaitingApproval"));
 * ```
 */
export function enters(name: string, filter: ActorFilter = {}): StatePathCheck {
  return (path) =>
    path.some((step) => forActor(filter)(step) && isIn(step.state, name))
      ? undefined
      : `never entered ${name}`;
}

/**
 * Passes when no actor (or not `filter.actor`) entered the state `name`.
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * statePath("no tool failed", neverEnters("failed"));
 * ```
 */
export function neverEnters(name: string, filter: ActorFilter = {}): StatePathCheck {
  return (path) => {
    const step = path.find((candidate) => forActor(filter)(candidate) && isIn(candidate.state, name));
    return step === undefined ? undefined : `${step.actor} entered ${step.state} (on ${step.event})`;
  };
}

/**
 * Passes when every actor that entered `later` had entered `earlier` before it: e.g. no tool call
 * executed before its approval (`entersBefore("awaitingApproval", "executing")`).
 *
 * Contract: pure; never throws.
 *
 * @example
 * ```ts
 * statePath("no tool ran before its approval", entersBefore("awaitingApproval", "executing"));
 * ```
 */
export function entersBefore(earlier: string, later: string, filter: ActorFilter = {}): StatePathCheck {
  return (path) => {
    const seen = new Set<string>();
    for (const step of path.filter(forActor(filter))) {
      if (isIn(step.state, earlier)) seen.add(step.actor);
      else if (isIn(step.state, later) && !seen.has(step.actor)) {
        return `${step.actor} entered ${step.state} without entering ${earlier} first`;
      }
    }
    return undefined;
  };
}

/**
 * Scores a run's state path (the states its agent machine and child machines entered, recorded
 * through XState's inspection): 1 when every check passes, else 0 with the problems found.
 *
 * Contract: returns a {@link Scorer} named `name`; a run without a recorded path (made from messages
 * alone) is not scored (null).
 *
 * @example
 * ```ts
 * const approvals = statePath("approval first", entersBefore("awaitingApproval", "executing"));
 * ```
 */
export function statePath(name: string, ...checks: StatePathCheck[]): Scorer {
  return createScorer({
    name,
    score(run) {
      if (run.path.length === 0) return null;
      const problems = checks.map((check) => check(run.path)).filter((problem) => problem !== undefined);
      return problems.length === 0
        ? { score: 1, reason: "the state path holds" }
        : { score: 0, reason: problems.join("; ") };
    },
  });
}
