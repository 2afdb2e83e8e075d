import type { EvalAgent } from "./eval-run.js";
import type { Scorer } from "./scorer.js";

/**
 * What the module given to `agentchart eval --agent FILE` exports as its default export: the agent
 * under evaluation and, optionally, the scorers (default: `trajectoryMatch()` and `exactText()`, which
 * score the cases that state an expected trajectory or output) and the result's name.
 */
export interface EvalSuite {
  agent: EvalAgent;
  scorers?: Scorer[];
  name?: string;
}
