import { importPeer } from "../types/missing-peer-dependency-error.js";

// `@opentelemetry/api` is an optional peer: loaded here, when `agentchart/otel` is imported, so that
// an app without it gets a MissingPeerDependencyError naming the package instead of a resolution
// error. Only types are imported from the package elsewhere.
const api = await importPeer(() => import("@opentelemetry/api"), "@opentelemetry/api", "agentchart/otel");

/** The values of `@opentelemetry/api` that agentchart/otel uses (the app's own copy of the API). */
export const { context, propagation, SpanKind, SpanStatusCode, trace } = api;
