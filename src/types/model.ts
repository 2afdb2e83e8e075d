/** How deeply a reasoning model should think; "off" sends no reasoning option. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Prices in dollars per million tokens. */
export interface ModelCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A model as the loop and the providers see it. */
export interface Model {
  id: string;
  name?: string;
  /** Wire protocol, e.g. "openai-chat", "openai-responses", "scripted". */
  api: string;
  provider: string;
  baseUrl?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  contextWindow: number;
  maxTokens: number;
  cost?: ModelCost;
}
