import type { EvalAgent, EvalApproval } from "./eval-run.js";
import type { Scorer } from "./scorer.js";

/**
 * What the module given to `agentchart eval --agent FILE` exports as its default export: the agent
 * under evaluation and, optionally, the scorers (default: `trajectoryMatch()` and `exactText()`, which
 * score the cases that state an expected trajectory or output), how approvals are decided (default:
 * every call approved) and the result's name.
 */
export interface EvalSuite {
  agent: EvalAgent;
  approve?: EvalApproval;
  scorers?: Scorer[];
  name?: string;
}
