import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createInspectorServer, type InspectorServer } from "../../src/inspector/index.js";
import { agentMachine } from "../../src/machines.js";
import { chromiumBinary, HEADLESS_CHROMIUM_FLAGS } from "../support/chromium.js";

// A browser and ELK layouts on a shared 2-core machine: generous timeouts under load.
vi.setConfig({ testTimeout: 60_000 });

const fixture = resolve(import.meta.dirname, "../fixtures/recordings/weather-approval.recording.jsonl");
let browser: BrowserContext;
let server: InspectorServer;
let profile: string;

beforeAll(async () => {
  const binary = await chromiumBinary();
  profile = mkdtempSync(join(tmpdir(), "agentchart-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: binary.executablePath,
    env: binary.env,
    args: HEADLESS_CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 900 },
  });
  server = await createInspectorServer({ port: 0, machines: [agentMachine] });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function openPage(): Promise<{ page: Page; failures: string[] }> {
  const failures: string[] = [];
  const page = await browser.newPage();
  page.setDefaultTimeout(8_000);
  page.on("pageerror", (error) => failures.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console: ${message.text()}`);
  });
  // The first request transpiles the page modules (source checkout): slow on a loaded machine.
  await page.goto(server.url, { timeout: 30_000 });
  await page.waitForSelector('[data-testid="connection"][data-state="open"]');
  return { page, failures };
}

const active = (path: string) => `[data-testid="state-${path}"][data-active="true"]`;
const entryKinds = (page: Page) =>
  page.$$eval('[data-testid="recording-entry"]', (items) =>
    items.map((item) => (item as HTMLElement).dataset.kind),
  );

describe("the inspector page steps through a recording", () => {
  it("opens a recording file: the agent machine with each step's state, its entries and transcript; back and forward", async () => {
    const { page, failures } = await openPage();
    await page.setInputFiles('[data-testid="recording-file"]', {
      name: "weather-approval.recording.jsonl",
      mimeType: "application/jsonl",
      buffer: readFileSync(fixture),
    });
    const label = page.locator('[data-testid="step-label"]');
    await expect.poll(() => label.textContent()).toBe("step 1 of 5 · turn_start");
    await page.waitForSelector(active("running.streaming.released"));
    await page.waitForSelector('svg[data-layout="done"]');
    expect(await page.locator('[data-testid="recording-step"]').count()).toBe(5);
    expect(await entryKinds(page)).toEqual(["command", "model_call"]);
    expect(await page.textContent('[data-testid="recording-entry"][data-kind="command"]')).toContain(
      "PROMPT",
    );
    expect(await page.textContent('[data-testid="step-back"]')).toBe("◀");
    expect(await page.isDisabled('[data-testid="step-back"]')).toBe(true);

    await page.click('[data-testid="step-forward"]');
    await expect.poll(() => label.textContent()).toBe("step 2 of 5 · awaiting_human");
    await page.waitForSelector(active("running.executingTools.awaitingHuman"));
    expect(await page.getAttribute('[data-testid="state-running.streaming"]', "data-active")).toBe("false");
    expect(await entryKinds(page)).toEqual(["tool_call", "command", "command"]);
    expect(await page.textContent('[data-testid="event-log"]')).toContain("weather");
    expect(await page.textContent('[data-testid="selection-title"]')).toMatch(
      /^Step 2 — transcript \(\d+ messages\)$/,
    );
    expect(await page.textContent('[data-testid="context-view"]')).toContain('"role": "assistant"');

    await page.click('[data-testid="step-forward"]');
    await page.click('[data-testid="step-forward"]');
    await page.click('[data-testid="step-forward"]');
    await expect.poll(() => label.textContent()).toBe("step 5 of 5 · run_end");
    await page.waitForSelector(active("idle"));
    expect(await page.isDisabled('[data-testid="step-forward"]')).toBe(true);

    await page.click('[data-testid="step-back"]');
    await expect.poll(() => label.textContent()).toBe("step 4 of 5 · turn_start");
    await page.waitForSelector(active("running.streaming"));
    expect(await page.getAttribute('[data-testid="state-idle"]', "data-active")).toBe("false");
    // A step picked from the list.
    await page.click('[data-testid="recording-step"] >> nth=2');
    await expect.poll(() => label.textContent()).toBe("step 3 of 5 · tools_settled");
    await page.waitForSelector(active("running.preparingTurn.deciding"));
    expect(failures).toEqual([]);
    await page.close();
  });

  it("names what is wrong with a file that is not a recording, and keeps the live view", async () => {
    const { page, failures } = await openPage();
    await page.setInputFiles('[data-testid="recording-file"]', {
      name: "notes.jsonl",
      mimeType: "application/jsonl",
      buffer: Buffer.from('{"type":"session","id":"x","cwd":"/"}\n'),
    });
    await expect
      .poll(() => page.textContent('[data-testid="recording-error"]'))
      .toContain("cannot open the recording: line 1: not a recording");
    expect(await page.isHidden('[data-testid="step-label"]')).toBe(true);
    expect(failures).toEqual([]);
    await page.close();
  });
});
