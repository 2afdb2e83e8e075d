import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { createActor } from "xstate";
import { createAgentLoopActor } from "../../src/agent/agent-loop.js";
import {
  type ActorRecord,
  createInspectorServer,
  type InspectorIngestMessage,
  type InspectorServer,
  projectMachineDefinition,
} from "../../src/inspector/index.js";
import { DIAGRAM_MARGIN, SMALLEST_FONT_SIZE } from "../../src/inspector/page/state-diagram.js";
import { agentMachine, createAgentMachine, harnessMachine, toolCallMachine } from "../../src/machines.js";
import { scriptedModel } from "../../src/providers/scripted/scripted-model.js";
import type { AssistantMessageEvent, StreamFn } from "../../src/types/stream.js";
import { type ChromiumBinary, chromiumBinary, HEADLESS_CHROMIUM_FLAGS } from "../support/chromium.js";
import { type DiagramBoxes, diagramFaults } from "../support/diagram-geometry.js";
import { createHarness } from "../support/harness-support.js";
import { promptRead, runEnded, startReadAgent } from "../support/inspected-agent.js";
import { deferred, echoTool, emptyContext, testModel, user } from "../support/loop-harness.js";

// A browser, ELK layouts and screenshots on a shared 2-core machine: generous timeouts under load.
vi.setConfig({ testTimeout: 60_000 });

let browser: BrowserContext | undefined;
const servers: InspectorServer[] = [];
let profile: string | undefined;

let missingBrowser: Error | undefined;

beforeAll(async () => {
  let binary: ChromiumBinary;
  try {
    binary = await chromiumBinary();
  } catch (error) {
    // Every test fails with this message (a throwing beforeAll would only mark them skipped).
    missingBrowser = new Error(
      "No Chromium for the inspector end-to-end test: run npm install (dev dependency @sparticuz/chromium) or set CHROMIUM_PATH",
      { cause: error },
    );
    return;
  }
  profile = mkdtempSync(join(tmpdir(), "agentchart-chromium-"));
  // A fresh, empty profile for every run (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: binary.executablePath,
    env: binary.env,
    args: HEADLESS_CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
  });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => server.close()));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function startServer(): Promise<InspectorServer> {
  const server = await createInspectorServer({ port: 0 });
  servers.push(server);
  return server;
}

async function openPage(url: string): Promise<Page> {
  if (missingBrowser) throw missingBrowser;
  if (!browser) throw new Error("browser not started");
  const failures: string[] = [];
  const page = await browser.newPage();
  page.setDefaultTimeout(8_000);
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => failures.push(error.message));
  page.on("requestfailed", (request) => failures.push(`request failed: ${request.url()}`));
  // The first request transpiles the page modules (source checkout): slow on a loaded machine.
  await page.goto(url, { timeout: 30_000 });
  await page.waitForSelector('[data-testid="connection"][data-state="open"]');
  expect(failures).toEqual([]);
  return page;
}

const active = (path: string) => `[data-testid="state-${path}"][data-active="true"]`;
/** The actor list's entry of the actor with session id `sessionId`. */
const actorItem = (sessionId: string) => `[data-testid="actor-${sessionId}"]`;

/** The session id of the one actor with id `actorId` that `server` has seen. */
function sessionIdOf(server: InspectorServer, actorId: string): string {
  const sessions = new Set(
    server
      .records()
      .filter((record) => record.actorId === actorId)
      .map((record) => record.sessionId),
  );
  expect(sessions.size, `actors with id ${actorId}`).toBe(1);
  return [...sessions][0]!;
}

describe("inspector page in headless Chromium", () => {
  it("shows the live machine, its tool call children and the event log", async () => {
    const server = await startServer();
    const page = await openPage(server.url);
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));

    const readMayFinish = deferred();
    const machine = createAgentMachine({
      streamFn: scriptedModel([
        {
          toolCalls: [
            { id: "call_1", name: "ls", arguments: { text: "." } },
            { id: "call_2", name: "read", arguments: { text: "a.txt" } },
          ],
        },
        { text: "Two files." },
      ]),
      tools: [{ ...echoTool("ls"), requiresApproval: true }, echoTool("read", () => readMayFinish.promise)],
    });
    const agent = createActor(machine, {
      id: "agent",
      input: { model: testModel, agentId: "a1" },
      inspect: server.inspect,
    }).start();
    await page.waitForSelector(active("idle"));
    for (const state of [
      "idle",
      "running",
      "running.streaming",
      "running.executingTools",
      "running.preparingTurn",
    ])
      await page.waitForSelector(`[data-testid="state-${state}"]`);
    await page.waitForSelector('[data-testid="state-diagram"] .edge[data-event="PROMPT"]');

    agent.send({ type: "PROMPT", messages: [user("list files")] });
    await page.waitForSelector(active("running.executingTools"));
    expect(await page.getAttribute('[data-testid="state-idle"]', "data-active")).toBe("false");
    const call1 = agent.getSnapshot().children.call_1!;
    const call2 = agent.getSnapshot().children.call_2!;
    await page.waitForSelector(
      `${actorItem(call1.sessionId)}[data-status="active"][data-state="awaitingApproval"]`,
    );
    await page.waitForSelector(`${actorItem(call2.sessionId)}[data-status="active"][data-state="executing"]`);

    agent.send({ type: "APPROVE_TOOL", toolCallId: "call_1" });
    await page.waitForSelector(`${actorItem(call1.sessionId)}[data-status="stopped"][data-state="settled"]`);
    expect(await page.getAttribute(actorItem(call2.sessionId), "data-status")).toBe("active");

    // Selecting the child draws its own machine and shows its context.
    await page.click(actorItem(call2.sessionId));
    await page.waitForSelector(`${active("executing")}`);
    await page.waitForSelector('[data-testid="context-view"]:has-text("\\"id\\": \\"call_2\\"")');

    await page.screenshot({ path: screenshotPath("inspector-tool-calls.png"), fullPage: true });

    readMayFinish.resolve();
    await page.waitForSelector(`${actorItem(call2.sessionId)}[data-status="stopped"]`);

    await page.click(actorItem(agent.sessionId));
    await page.waitForSelector(active("idle"));
    expect(agent.getSnapshot().matches("idle")).toBe(true);

    const log = page.getByTestId("event-log");
    await log.locator('[data-event-type="REPLY_STREAMED"]').first().waitFor();
    await log.locator('[data-event-type="xstate.done.actor.call_1"]').click();
    await page.waitForSelector('[data-testid="context-view"]:has-text("echo: .")');

    await page.screenshot({ path: screenshotPath("inspector.png"), fullPage: true });
    const origin = new URL(server.url).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([]);
    await page.close();
  });

  it("follows a real agent loop run: streaming, a tool call child, done", async () => {
    const server = await startServer();
    const page = await openPage(server.url);
    const replyMayFinish = deferred();
    const toolMayFinish = deferred();
    const replies = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" }, id: "call_real" }] },
      { text: "done" },
    ]);
    // The first reply holds after its start event until the test has seen `streaming` on the page.
    const streamFn: StreamFn = (model, context, options) => {
      const source = replies(model, context, options) as AsyncIterable<AssistantMessageEvent>;
      const first = replies.calls.length === 1;
      return (async function* () {
        for await (const event of source) {
          if (first && event.type === "toolcall_start") await replyMayFinish.promise;
          yield event;
        }
      })();
    };
    const tool = echoTool("echo", () => toolMayFinish.promise);
    const actor = createAgentLoopActor(emptyContext({ tools: [tool] }), {
      model: testModel,
      streamFn,
      inspect: server.inspect,
    });
    const finished = new Promise<void>((resolve) => actor.on("agent_end", () => resolve()));
    actor.start();
    actor.send({ type: "PROMPT", messages: [user("say hi")] });

    await page.waitForSelector(active("running.streaming"));
    replyMayFinish.resolve();
    await page.waitForSelector(active("running.executingTools"));
    const call = actorItem(sessionIdOf(server, "call_real"));
    await page.waitForSelector(`${call}[data-status="active"]`);
    await page.screenshot({ path: screenshotPath("inspector-real-loop-tool.png"), fullPage: true });
    toolMayFinish.resolve();
    await finished;
    await page.waitForSelector(active("idle"));
    await page.waitForSelector(`${call}[data-status="stopped"]`);
    await page.screenshot({ path: screenshotPath("inspector-real-loop.png"), fullPage: true });
    await page.close();
  });

  it("replays a finished run to a page opened afterwards", async () => {
    const server = await startServer();
    const agent = startReadAgent(server.inspect, { needsApproval: false });
    promptRead(agent);
    await runEnded(agent);

    const page = await openPage(server.url);
    await page.waitForSelector(active("idle"));
    await page.waitForSelector(
      `${actorItem(sessionIdOf(server, "call_1"))}[data-status="stopped"][data-state="settled"]`,
    );
    await page.waitForSelector('[data-testid="event-log"] [data-event-type="PROMPT"]');
    await page.close();
  });
});

describe("an inspector a person can read", () => {
  it("opens on the newest harness, one system holding its agent, session and tool call, and hides internal actors", async () => {
    const server = await startServer();
    const turns = (callId: string) => [
      { toolCalls: [{ name: "echo", arguments: { text: "hi" }, id: callId }] },
      { text: "done" },
    ];
    const first = await createHarness(turns("call_first"), { inspect: server.inspect, tools: [echoTool()] });
    await first.harness.prompt("one");
    const second = await createHarness(turns("call_second"), {
      inspect: server.inspect,
      tools: [echoTool()],
    });
    await second.harness.prompt("two");
    // A harness's agent id is its session's id; the page shows its first eight characters.
    const agentName = (harness: typeof first.harness) => `agent ${harness.session.id.slice(0, 8)}`;
    const harnessName = (harness: typeof first.harness) => `harness of ${agentName(harness)}`;

    const page = await openPage(server.url);
    const diagram = '[data-testid="state-diagram"][data-layout="done"][data-scale]';
    await page.waitForSelector(`${diagram}[data-machine^="harness#"]`);
    const callSecond = actorItem(sessionIdOf(server, "call_second"));
    await page.waitForSelector(callSecond);
    // One system per harness: the harness machine is its root, the agent an actor inside it.
    const systems = await page.$$eval('[data-testid="system-select"] option', (options) =>
      options.map((option) => ({
        text: option.textContent,
        selected: (option as HTMLOptionElement).selected,
      })),
    );
    expect(systems).toEqual([
      { text: harnessName(first.harness), selected: false },
      { text: harnessName(second.harness), selected: true },
    ]);
    expect(await page.textContent("#diagram-title")).toBe(
      `Machine harness — ${harnessName(second.harness)} (active)`,
    );
    // The actor tree, each actor with its depth: the harness's agent and session, the agent's model
    // calls (`stream`) and its tool call (by tool name and call id) with the call's `executeTool`, the
    // harness's `turn`. The harness sets no between-turn callbacks, so its agent decides between
    // turns without an actor.
    const actorTree = () =>
      page.$$eval(".actor", (items) =>
        items.map((item) => ({
          name: item.querySelector(".name")?.textContent,
          depth: Number((item as HTMLElement).style.getPropertyValue("--depth")),
        })),
      );
    const tree = [
      { name: harnessName(second.harness), depth: 0 },
      { name: "session", depth: 1 },
      { name: agentName(second.harness), depth: 1 },
      { name: "stream", depth: 2 },
      { name: "echo · call_second", depth: 2 },
      { name: "executeTool", depth: 3 },
      { name: "stream", depth: 2 },
      { name: "turn", depth: 1 },
    ];
    expect(await actorTree()).toEqual(tree);
    expect(await page.$(`${callSecond} .internal-count`)).toBeNull();
    const log = await page.textContent('[data-testid="event-log"]');
    expect(log).not.toContain("0.toolCall");
    await page.screenshot({ path: screenshotPath("inspector-readable-harness.png") });

    // No actor of the system is internal (an XState-generated id): showing internal actors adds none.
    await page.check('[data-testid="show-internal"]');
    expect(await actorTree()).toEqual(tree);
    await page.uncheck('[data-testid="show-internal"]');

    // Clicking the agent in the tree draws the agent machine; the system stays the harness's.
    await page.click(`.actor .name:text-is("${agentName(second.harness)}")`);
    await page.waitForSelector(`${diagram}[data-machine^="agent#"]`);
    expect(await page.textContent("#diagram-title")).toBe(
      `Machine agent — ${agentName(second.harness)} (active)`,
    );
    expect(
      await page.$eval(
        '[data-testid="system-select"]',
        (select) => (select as HTMLSelectElement).selectedOptions[0]?.text,
      ),
    ).toBe(harnessName(second.harness));
    await page.screenshot({ path: screenshotPath("inspector-readable-agent.png") });

    // Zoom and pan: the buttons scale around the centre, a drag moves the drawing with the pointer.
    const scaleNow = async () => Number(await page.getAttribute(diagram, "data-scale"));
    const rootBox = async () => (await page.locator('[data-testid="state-root"] > rect').boundingBox())!;
    const defaultScale = await scaleNow();
    await page.click('[data-testid="zoom-in"]');
    expect(await scaleNow()).toBeCloseTo(defaultScale * 1.25, 6);
    const before = await rootBox();
    const panel = (await page.locator('[data-testid="diagram"]').boundingBox())!;
    await page.mouse.move(panel.x + 300, panel.y + 200);
    await page.mouse.down();
    await page.mouse.move(panel.x + 400, panel.y + 250, { steps: 4 });
    await page.mouse.up();
    const after = await rootBox();
    expect(after.x - before.x).toBeCloseTo(100, 0);
    expect(after.y - before.y).toBeCloseTo(50, 0);
    await page.mouse.wheel(0, -200);
    await page.waitForFunction(
      ([selector, scale]) =>
        Number(document.querySelector(selector as string)?.getAttribute("data-scale")) > (scale as number),
      [diagram, defaultScale * 1.25] as const,
    );
    await page.click('[data-testid="zoom-all"]');
    expect(await scaleNow()).toBeLessThanOrEqual(defaultScale);
    await page.click('[data-testid="zoom-fit"]');
    expect(await scaleNow()).toBe(defaultScale);

    await page.close();
  });
});

describe("the inspector's diagrams, laid out by ELK in headless Chromium", () => {
  it("draws the loop, tool-call and harness machines with nested states and no label over another or a state", async () => {
    const server = await startServer();
    const page = await openPage(server.url);
    const ingest = new WebSocket(`${server.url.replace(/^http/, "ws")}ingest`);
    await new Promise((resolve, reject) => ingest.once("open", resolve).once("error", reject));
    const machines = { loop: agentMachine, toolCall: toolCallMachine, harness: harnessMachine };
    const figures: Array<{ name: string; scale: number; fit: number; smallestTextPx: number }> = [];
    for (const [name, machine] of Object.entries(machines)) {
      // A root actor running `machine`, as another process would stream it: the page draws its definition.
      const machineKey = `${machine.id}#e2e`;
      const actor: ActorRecord = {
        kind: "actor",
        seq: 1,
        time: Date.now(),
        sessionId: name,
        actorId: name,
        rootId: name,
        machineKey,
        definition: { machineKey, root: projectMachineDefinition(machine) },
      };
      const message: InspectorIngestMessage = { type: "records", records: [actor] };
      ingest.send(JSON.stringify(message));
      const diagram = `[data-testid="state-diagram"][data-machine$="${machineKey}"][data-layout="done"][data-scale]`;
      await page.waitForSelector(diagram);
      const view = await renderedView(page, diagram);
      // Every text at least 11 px on screen, at the default scale (the CTM is single precision).
      for (const text of view.texts) expect(text.px, `${name}: ${text.text}`).toBeGreaterThan(11 - 1e-4);
      // As large as fits in both directions, unless that would make text smaller than 11 px.
      const fit = Math.min(view.panel.width / view.content.width, view.panel.height / view.content.height);
      expect(view.scale, name).toBeCloseTo(Math.min(1.5, Math.max(11 / SMALLEST_FONT_SIZE, fit)), 3);
      figures.push({
        name,
        scale: view.scale,
        fit,
        smallestTextPx: Math.min(...view.texts.map((t) => t.px)),
      });
      const boxes = await page.$eval(diagram, (svg): DiagramBoxes => {
        const rect = (element: Element | null) => {
          const box = (element as SVGGraphicsElement).getBBox();
          return { x: box.x, y: box.y, width: box.width, height: box.height };
        };
        const states = Array.from(svg.querySelectorAll("g.state")).map((group) => {
          const testId = group.getAttribute("data-testid") ?? "";
          return {
            path: testId === "state-root" ? "" : testId.slice("state-".length),
            rect: rect(group.querySelector(":scope > rect")),
            label: rect(group.querySelector(":scope > text")),
            atomic: false,
          };
        });
        for (const state of states) {
          const prefix = state.path === "" ? "" : `${state.path}.`;
          state.atomic = !states.some((other) => other !== state && other.path.startsWith(prefix));
        }
        const edgeLabels = Array.from(svg.querySelectorAll("g.edge")).map((edge) => ({
          name: `${edge.getAttribute("data-source")} → ${edge.getAttribute("data-target")}: ${edge.textContent}`,
          rect: rect(edge.querySelector("text")),
        }));
        return { states, edgeLabels };
      });
      const expectedStates = (node: ActorRecord["definition"] & {}): number => {
        const count = (state: typeof node.root): number =>
          1 + state.states.reduce((sum, child) => sum + count(child), 0);
        return count(node.root);
      };
      expect(boxes.states).toHaveLength(expectedStates(actor.definition!));
      expect(boxes.edgeLabels.length, name).toBeGreaterThan(5);
      // Real text metrics: a label without width would make the overlap check vacuous.
      for (const label of boxes.edgeLabels) expect(label.rect.width, label.name).toBeGreaterThan(10);
      expect(diagramFaults(boxes), name).toEqual([]);
      await page.screenshot({ path: screenshotPath(`inspector-diagram-${name}.png`), fullPage: true });
    }
    ingest.close();
    await page.close();
    console.log(`diagram figures (panel of a 1400 × 900 window): ${JSON.stringify(figures)}`);
  });
});

/** What a drawn diagram shows on screen: its texts' sizes in px, the panel, the camera's scale. */
interface RenderedView {
  texts: Array<{ text: string; px: number }>;
  panel: { width: number; height: number };
  /** The drawn content (the root state plus the page's margin) in diagram units. */
  content: { width: number; height: number };
  scale: number;
}

/** Measures the diagram as rendered: computed font size × the SVG's current scale (its screen CTM). */
function renderedView(page: Page, diagram: string): Promise<RenderedView> {
  return page.$eval(
    diagram,
    (svg, margin) => {
      const texts = Array.from(svg.querySelectorAll("text")).map((text) => ({
        text: text.firstChild?.textContent ?? "",
        px:
          Number.parseFloat(getComputedStyle(text).fontSize) *
          ((text as SVGTextElement).getScreenCTM()?.a ?? 0),
      }));
      const panel = (svg.parentElement as HTMLElement).getBoundingClientRect();
      const root = (svg.querySelector('[data-testid="state-root"] > rect') as SVGRectElement).getBBox();
      return {
        texts,
        panel: { width: panel.width, height: panel.height },
        content: { width: root.width + 2 * margin, height: root.height + 2 * margin },
        scale: (svg as SVGSVGElement).getScreenCTM()?.a ?? 0,
      };
    },
    DIAGRAM_MARGIN,
  );
}

function screenshotPath(name: string): string {
  mkdirSync("test-artifacts", { recursive: true });
  return join("test-artifacts", name);
}
