import { type Observable, Subject } from "rxjs";
import type { AgentEvent } from "../types/events.js";
import type { HarnessEvent, HarnessOwnEvent, HookRegistry } from "./hooks.js";

/**
 * The harness's event stream (`harness.events$`): every AgentEvent of its runs, and its own events,
 * which also go to their `on(type)` handlers (whose failures go to `onHandlerError`, never to the
 * emitter).
 */
export class HarnessEvents {
  readonly #subject = new Subject<HarnessEvent>();
  readonly #hooks: HookRegistry;

  constructor(hooks: HookRegistry) {
    this.#hooks = hooks;
  }

  get events$(): Observable<HarnessEvent> {
    return this.#subject.asObservable();
  }

  /** Passes on an AgentEvent of the harness's agent. */
  forward(event: AgentEvent): void {
    this.#subject.next(event);
  }

  /** Emits one of the harness's own events: on `events$`, then to its handlers. */
  emit(event: HarnessOwnEvent): void {
    this.#subject.next(event);
    this.#hooks.notify(event);
  }
}
