/**
 * `agentchart/openai`: a StreamFn over the official `openai` SDK (Chat Completions and Responses),
 * for OpenAI and any OpenAI-compatible server.
 */
export {
  type OpenAIProviderOptions,
  type OpenAIStreamFn,
  openai,
  PLACEHOLDER_API_KEY,
} from "./providers/openai/openai-provider.js";
export type { StructuredOutputMode } from "./providers/openai/structured-output.js";
