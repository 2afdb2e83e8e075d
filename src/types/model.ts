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

/** A model as the loop and the providers see it (`resolveModel` makes one from an id or a partial record). */
export interface Model {
  /** The id sent to the server. */
  id: string;
  name?: string;
  /**
   * Wire protocol. For the `openai()` provider: "openai-chat" (Chat Completions) or
   * "openai-responses" (the Responses API) pin one; "openai" (the default) leaves the choice to
   * `openai({ api })`, which uses Chat Completions unless told otherwise. Other providers have their
   * own values ("scripted"; `agentchart/ai-sdk` uses the AI SDK provider id, "anthropic.messages").
   */
  api: string;
  provider: string;
  baseUrl?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  contextWindow: number;
  maxTokens: number;
  cost?: ModelCost;
}

/** A model record of which only `id` is required; `resolveModel` fills in the rest. */
export type ModelRecord = Pick<Model, "id"> & Partial<Model>;

/**
 * What options that take a model accept: a {@link Model}, a partial {@link ModelRecord}, or an id
 * (`"gpt-4.1-mini"`) — see `resolveModel`.
 */
export type ModelInput = string | ModelRecord;
