export * from "./events.js";
export * from "./harness-messages.js";
export * from "./loop.js";
export * from "./messages.js";
export * from "./model.js";
export * from "./stream.js";
export * from "./tool.js";
export * from "./tool-source.js";
