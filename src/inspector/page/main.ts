import type {
  EventRecord,
  InspectorServerMessage,
  JsonValue,
  MachineDefinitionRecord,
  SnapshotRecord,
} from "../inspection-record.js";
import { actorName, isInternalActor, preferredSystem, systemName } from "./actor-names.js";
import { actorTestId } from "./actor-test-id.js";
import { readableEventType } from "./diagram-layout.js";
import { createDiagramViewport } from "./diagram-viewport.js";
import ELK from "./elk.js";
import {
  type ActorView,
  activeStatePaths,
  actorDepth,
  actorsOfSystem,
  applyServerMessage,
  createInspectorModel,
  describeStateValue,
  type Indexed,
  isRootActor,
  snapshotAfterEvent,
} from "./inspector-model.js";
import { type RecordingStepView, recordingSteps } from "./recording-steps.js";
import { drawStateDiagram, SMALLEST_FONT_SIZE, type StateDiagram } from "./state-diagram.js";

/**
 * The inspector page: connects to `/ws`, folds records into the model and re-renders once per
 * animation frame. Selection: the system (root actor) follows the newest agent (else the newest
 * system) unless the user picks one; the diagram shows the selected actor's machine, or the root's,
 * laid out by ELK, in a zoom-and-pan viewport whose default scale keeps every text at least
 * {@link MIN_TEXT_PX} pixels high. Actors XState invokes without an id are hidden unless asked for.
 */

const EVENT_LOG_LIMIT = 200;
/** The smallest text size, in screen pixels, the diagram shows at its default scale. */
const MIN_TEXT_PX = 11;

const model = createInspectorModel();
const layoutEngine = new ELK();
const view = {
  rootId: undefined as string | undefined,
  followNewest: true,
  showInternal: false,
  selection: undefined as { kind: "actor"; sessionId: string } | { kind: "event"; index: number } | undefined,
  diagram: undefined as { machineKey: string; diagram: StateDiagram } | undefined,
  frame: 0,
  /** An opened recording and the step shown; the live view is hidden meanwhile. */
  recording: undefined as { steps: RecordingStepView[]; at: number } | undefined,
};

const byId = <TElement extends HTMLElement>(id: string) => document.getElementById(id) as TElement;
const rootSelect = byId<HTMLSelectElement>("system-select");
const connection = byId<HTMLElement>("connection");
const viewport = createDiagramViewport(byId("diagram"), MIN_TEXT_PX / SMALLEST_FONT_SIZE);

rootSelect.addEventListener("change", () => pickSystem(rootSelect.value));
byId<HTMLInputElement>("show-internal").addEventListener("change", (event) => {
  view.showInternal = (event.target as HTMLInputElement).checked;
  scheduleRender();
});
byId("zoom-in").addEventListener("click", () => viewport.zoom(1.25));
byId("zoom-out").addEventListener("click", () => viewport.zoom(0.8));
byId("zoom-fit").addEventListener("click", () => viewport.fit());
byId("zoom-all").addEventListener("click", () => viewport.showAll());
byId<HTMLInputElement>("recording-file").addEventListener("change", (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) void file.text().then(openRecording);
});
byId("step-back").addEventListener("click", () => moveStep(-1));
byId("step-forward").addEventListener("click", () => moveStep(1));
byId("recording-close").addEventListener("click", () => {
  view.recording = undefined;
  byId("recording-bar").hidden = true;
  byId<HTMLInputElement>("recording-file").value = "";
  scheduleRender();
});

/** Opens a recording's text: its first step is shown; a bad file is named and the view is unchanged. */
function openRecording(text: string): void {
  const error = byId("recording-error");
  let steps: RecordingStepView[];
  try {
    steps = recordingSteps(text);
  } catch (problem) {
    error.textContent = `cannot open the recording: ${(problem as Error).message}`;
    return;
  }
  if (steps.length === 0) {
    error.textContent = "cannot open the recording: it holds no step";
    return;
  }
  error.textContent = "";
  view.recording = { steps, at: 0 };
  byId("recording-bar").hidden = false;
  scheduleRender();
}

function moveStep(by: number): void {
  const recording = view.recording;
  if (!recording) return;
  recording.at = Math.min(recording.steps.length - 1, Math.max(0, recording.at + by));
  scheduleRender();
}

/** Shows the system `rootId`; picking the one the page would open on follows newer agents again. */
function pickSystem(rootId: string): void {
  view.rootId = rootId;
  view.followNewest = rootId === preferredSystem(model);
  view.selection = undefined;
  scheduleRender();
}

connect(0);

function connect(attempt: number): void {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket.addEventListener("open", () => {
    attempt = 0;
    setConnection("open", "live");
  });
  socket.addEventListener("message", (message) => {
    applyServerMessage(model, JSON.parse(String(message.data)) as InspectorServerMessage);
    scheduleRender();
  });
  socket.addEventListener("close", () => {
    setConnection("closed", "disconnected — retrying");
    setTimeout(() => connect(attempt + 1), Math.min(5_000, 250 * 2 ** attempt));
  });
}

function setConnection(state: string, text: string): void {
  connection.dataset.state = state;
  connection.textContent = text;
}

function scheduleRender(): void {
  if (view.frame !== 0) return;
  view.frame = requestAnimationFrame(() => {
    view.frame = 0;
    render();
  });
}

function render(): void {
  if (view.recording) {
    renderRecording(view.recording);
    return;
  }
  renderRootSelect();
  const rootId = view.rootId;
  if (rootId === undefined) return;
  const actors = actorsOfSystem(model, rootId);
  renderDiagram(diagramActor(rootId));
  renderActors(actors);
  renderEvents(rootId);
  renderSelection();
}

function renderRootSelect(): void {
  if (model.roots.length === 0) return;
  if (view.followNewest || view.rootId === undefined) view.rootId = preferredSystem(model);
  // Names change when a root's first snapshot arrives (its agent id): rebuild when any differs.
  const options = model.roots.map((rootId) => ({ rootId, name: systemName(model, rootId) }));
  const current = Array.from(rootSelect.options, (option) => `${option.value}\n${option.text}`);
  if (current.join("\n") !== options.map(({ rootId, name }) => `${rootId}\n${name}`).join("\n")) {
    rootSelect.replaceChildren(...options.map(({ rootId, name }) => new Option(name, rootId)));
  }
  rootSelect.value = view.rootId ?? "";
}

/** The actor whose machine is drawn: the selected actor when it runs a machine, else the root. */
function diagramActor(rootId: string): ActorView | undefined {
  const selected = view.selection?.kind === "actor" ? model.actors.get(view.selection.sessionId) : undefined;
  if (selected?.machineKey !== undefined && model.definitions.has(selected.machineKey)) return selected;
  return model.actors.get(rootId);
}

function renderDiagram(actor: ActorView | undefined): void {
  const definition = actor?.machineKey === undefined ? undefined : model.definitions.get(actor.machineKey);
  if (!actor || !definition) {
    showDiagram(undefined, undefined, "No machine definition received yet.");
    return;
  }
  showDiagram(
    definition,
    actor.snapshot?.value,
    `Machine ${definition.root.id} — ${actorName(model, actor)} (${actor.status})`,
  );
  if (view.diagram) view.diagram.diagram.element.dataset.actor = actor.actorId;
}

/** Draws `definition` (laid out once per machine) with the states of `value` active; else `title` as a note. */
function showDiagram(
  definition: MachineDefinitionRecord | undefined,
  value: JsonValue | undefined,
  title: string,
): void {
  const container = byId<HTMLElement>("diagram");
  if (!definition) {
    view.diagram = undefined;
    container.replaceChildren(emptyNote(title));
    return;
  }
  if (view.diagram?.machineKey !== definition.machineKey) {
    const diagram = drawStateDiagram(definition, layoutEngine);
    view.diagram = { machineKey: definition.machineKey, diagram };
    container.replaceChildren(diagram.element);
    void diagram.drawn.then((content) => {
      if (content && view.diagram?.diagram === diagram) viewport.show(diagram.element, content);
    });
  }
  view.diagram.diagram.setActive(new Set(activeStatePaths(value)));
  byId("diagram-title").textContent = title;
}

/**
 * An opened recording at its current step: the agent machine with the step's state active, the
 * steps (in the actors panel), the entries that led to the step (in the events panel) and the
 * step's transcript (in the snapshot panel).
 */
function renderRecording(recording: { steps: RecordingStepView[]; at: number }): void {
  const step = recording.steps[recording.at]!;
  const label = byId("step-label");
  label.textContent = `step ${recording.at + 1} of ${recording.steps.length} · ${step.step}`;
  label.dataset.step = step.step;
  byId<HTMLButtonElement>("step-back").disabled = recording.at === 0;
  byId<HTMLButtonElement>("step-forward").disabled = recording.at === recording.steps.length - 1;
  const agent = [...model.definitions.values()].find((definition) => definition.root.id === "agent");
  showDiagram(
    agent,
    step.value,
    agent
      ? `Machine agent — recording, step ${recording.at + 1}: ${step.step} (${describeStateValue(step.value)})`
      : "The agent machine's definition is not here: start the inspector with machines: [agentMachine] (agentchart inspect does).",
  );
  byId<HTMLElement>("actor-list").replaceChildren(
    ...recording.steps.map((each, position) => {
      const item = document.createElement("li");
      item.className = "actor";
      item.dataset.testid = "recording-step";
      item.setAttribute("aria-selected", String(position === recording.at));
      item.append(
        span("name", `${position + 1}. ${each.step}`),
        span("state-name", describeStateValue(each.value)),
      );
      item.addEventListener("click", () => {
        recording.at = position;
        render();
      });
      return item;
    }),
  );
  byId<HTMLElement>("event-log").replaceChildren(
    ...(step.entries.length === 0
      ? [emptyNote("Nothing happened since the previous step.")]
      : step.entries.map((entry) => {
          const item = document.createElement("li");
          item.className = "recording-entry";
          item.dataset.testid = "recording-entry";
          item.dataset.kind = entry.kind;
          const who = entry.agentPath === "" ? "" : ` (${entry.agentPath})`;
          item.append(span("kind", `${entry.kind.replace("_", " ")}${who}`), span("text", entry.text));
          return item;
        })),
  );
  byId("selection-title").textContent =
    `Step ${recording.at + 1} — transcript (${step.messages.length} messages)`;
  byId("context-view").textContent = JSON.stringify(step.messages, null, 2);
}

/**
 * The system's actors, root first; internal actors (see `isInternalActor`) follow their parent when
 * shown, else the parent says how many it holds.
 */
function renderActors(actors: ActorView[]): void {
  const list = byId<HTMLElement>("actor-list");
  const internal = actors.filter(isInternalActor);
  const ordered = actors
    .filter((actor) => !isInternalActor(actor))
    .flatMap((actor) => [actor, ...internal.filter((child) => child.parentId === actor.sessionId)]);
  list.replaceChildren(
    ...ordered
      .filter((actor) => view.showInternal || !isInternalActor(actor))
      .map((actor) => {
        const isRoot = isRootActor(actor);
        const item = document.createElement("li");
        item.className = isRoot ? "actor" : isInternalActor(actor) ? "actor child internal" : "actor child";
        item.dataset.testid = actorTestId(actor);
        item.dataset.status = actor.status;
        item.dataset.state = describeStateValue(actor.snapshot?.value);
        item.style.setProperty("--depth", String(actorDepth(model, actor)));
        item.setAttribute("aria-selected", String(isSelectedActor(actor)));
        item.title = `${actor.actorId} (${actor.sessionId})`;
        const hidden = view.showInternal
          ? 0
          : internal.filter((child) => child.parentId === actor.sessionId).length;
        item.append(
          span("name", actorName(model, actor)),
          span("status", actor.status),
          ...(hidden > 0 ? [span("internal-count", `+${hidden} internal`)] : []),
          span("state-name", item.dataset.state || "—"),
        );
        item.addEventListener("click", () => select({ kind: "actor", sessionId: actor.sessionId }));
        return item;
      }),
  );
}

function renderEvents(rootId: string): void {
  const log = byId<HTMLElement>("event-log");
  const shown = (sessionId: string) => {
    const actor = model.actors.get(sessionId);
    return view.showInternal || actor === undefined || !isInternalActor(actor);
  };
  const events = model.events
    .filter((entry) => entry.record.rootId === rootId && shown(entry.record.sessionId))
    .slice(-EVENT_LOG_LIMIT);
  log.replaceChildren(
    ...events.reverse().map((entry) => {
      const item = document.createElement("li");
      item.className = "event";
      item.dataset.testid = "event-entry";
      item.dataset.eventType = entry.record.eventType;
      item.title = entry.record.eventType;
      item.dataset.actor = entry.record.actorId;
      item.setAttribute(
        "aria-selected",
        String(view.selection?.kind === "event" && view.selection.index === entry.index),
      );
      const source =
        entry.record.sourceId === undefined ? undefined : model.actors.get(entry.record.sourceId);
      const target = model.actors.get(entry.record.sessionId);
      item.append(
        span("seq", String(entry.index)),
        span("actor-id", target ? actorName(model, target) : entry.record.actorId),
        span("type", readableEventType(entry.record.eventType)),
        span("source", source ? `from ${actorName(model, source)}` : ""),
      );
      item.addEventListener("click", () => select({ kind: "event", index: entry.index }));
      return item;
    }),
  );
}

function renderSelection(): void {
  const title = byId("selection-title");
  const output = byId("context-view");
  const selection = view.selection;
  if (selection?.kind === "actor") {
    const actor = model.actors.get(selection.sessionId);
    title.textContent = `Actor ${actor ? actorName(model, actor) : selection.sessionId} — latest snapshot`;
    output.textContent = actor?.snapshot ? formatSnapshot(actor.snapshot) : "No snapshot yet.";
  } else if (selection?.kind === "event") {
    const entry = model.events.find((event) => event.index === selection.index);
    if (!entry) return;
    const snapshot = snapshotAfterEvent(model, entry);
    const target = model.actors.get(entry.record.sessionId);
    title.textContent = `Event ${entry.record.eventType} → ${target ? actorName(model, target) : entry.record.actorId}`;
    output.textContent = formatEvent(entry, snapshot);
  }
}

function formatSnapshot(snapshot: SnapshotRecord): string {
  const { value, status, context, output, error } = snapshot;
  return JSON.stringify({ value, status, context, output, error, children: snapshot.children }, null, 2);
}

function formatEvent(entry: Indexed<EventRecord>, snapshot: SnapshotRecord | undefined): string {
  const event = JSON.stringify({ type: entry.record.eventType, payload: entry.record.payload }, null, 2);
  return `${event}\n\nsnapshot after the event:\n${snapshot ? formatSnapshot(snapshot) : "none recorded"}`;
}

function isSelectedActor(actor: ActorView): boolean {
  return view.selection?.kind === "actor" && view.selection.sessionId === actor.sessionId;
}

function select(selection: NonNullable<typeof view.selection>): void {
  view.selection = selection;
  render();
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

function emptyNote(text: string): HTMLElement {
  const note = document.createElement("p");
  note.className = "empty";
  note.textContent = text;
  return note;
}
