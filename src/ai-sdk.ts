/**
 * `agentchart/ai-sdk`: any AI SDK provider model (`LanguageModelV3`: `@ai-sdk/anthropic`,
 * `@ai-sdk/google`, `@ai-sdk/openai`, Bedrock, Mistral, …, the `ai` 6 line) as an agentchart model
 * and StreamFn. The provider packages are optional peers: install the ones you use.
 */
export { AiSdkSetupError, type AiSdkSetupErrorCode } from "./providers/ai-sdk/ai-sdk-setup-error.js";
export {
  type AiSdkModel,
  type AiSdkStreamFn,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./providers/ai-sdk/from-ai-sdk.js";
export { SUPPORTED_SPECIFICATION } from "./providers/ai-sdk/language-model.js";
export type { CacheRetention } from "./providers/ai-sdk/prompt-cache.js";
export {
  AI_SDK_PROVIDERS,
  type AiSdkModelOptions,
  type AiSdkProviderName,
  aiSdkModel,
  loadAiSdkProvider,
} from "./providers/ai-sdk/provider-packages.js";
export { THINKING_BUDGETS } from "./providers/ai-sdk/reasoning-options.js";
export {
  NO_TOOL_RESULT,
  type TranscriptTarget,
  transcriptForModel,
} from "./providers/transcript-for-model.js";
