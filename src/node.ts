export type { Durability } from "./storage/jsonl-files.js";
export { JsonlSessionRepo, type JsonlSessionRepoOptions } from "./storage/jsonl-session-repo.js";
