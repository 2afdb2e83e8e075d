import type { ActorView } from "./inspector-model.js";

/**
 * The `data-testid` of an actor's entry in the page's actor list: `actor-<session id>`
 * (`actor-x:3`, `actor-i1/x:3` for an ingested process's actor).
 *
 * Contract: unique among the page's actors, since the page keys actors by session id (XState's are
 * unique within a process, the server prefixes each ingest connection's); stable for the actor's
 * whole life and across page reloads (a replay carries the same session ids). Two actors with the
 * same actor id (two app actors each invoking `agent`, two agents each running a call `call_1`)
 * get different test ids.
 */
export function actorTestId(actor: Pick<ActorView, "sessionId">): string {
  return `actor-${actor.sessionId}`;
}
