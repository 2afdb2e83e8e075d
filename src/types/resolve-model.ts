import type { Model, ModelInput, ModelRecord } from "./model.js";
import { findModel } from "./model-catalogue.js";

/**
 * What a model record that gives only `id` gets, for an id the catalogue does not know: an
 * OpenAI-compatible text model whose protocol the provider chooses, with a 128k window and a cap of
 * 8,192 output tokens; no `cost` (usage is counted, not priced) and no `reasoning`.
 */
export const MODEL_DEFAULTS: Readonly<Omit<Model, "id">> = {
  api: "openai",
  provider: "openai",
  reasoning: false,
  input: ["text"],
  contextWindow: 128_000,
  maxTokens: 8_192,
};

/**
 * Makes a {@link Model} from what options accept. An id (`"gpt-4.1-mini"`, `"qwen3:8b"`) is looked
 * up in the catalogue (`findModel`); a record gets the fields it leaves out from the catalogue entry
 * of its id, else from {@link MODEL_DEFAULTS}. Either way the id stays as given (it is what the
 * server is sent). A record that gives every required field (`api`, `provider`, `contextWindow`,
 * `maxTokens`) is a complete Model and is returned as it is.
 *
 * Contract: synchronous, never throws; an unknown id gets the defaults (the server will say if it
 * does not serve it). Use `getModel` to insist on a catalogue model.
 *
 * ```ts
 * resolveModel("gpt-4.1-mini").contextWindow; // 1047576
 * resolveModel({ id: "my-finetune", contextWindow: 32_768 }).maxTokens; // 8192
 * ```
 */
export function resolveModel(input: ModelInput): Model {
  if (typeof input === "string") return findModel(input) ?? { ...MODEL_DEFAULTS, id: input };
  if (isComplete(input)) return input;
  return { ...MODEL_DEFAULTS, ...findModel(input.id), ...input };
}

function isComplete(record: ModelRecord): record is Model {
  return (
    record.api !== undefined &&
    record.provider !== undefined &&
    record.contextWindow !== undefined &&
    record.maxTokens !== undefined
  );
}
