import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLOURS, STORY } from "../../examples/web-chat/web-chat-model.js";
import { startWebChat, type WebChat } from "../../examples/web-chat/web-chat-server.js";
import { chromiumBinary, HEADLESS_CHROMIUM_FLAGS } from "../support/chromium.js";

let browser: BrowserContext | undefined;
let chat: WebChat | undefined;
let profile: string | undefined;
let failure: Error | undefined;

beforeAll(async () => {
  try {
    const binary = await chromiumBinary();
    chat = await startWebChat({ delayMs: 15 });
    profile = mkdtempSync(join(tmpdir(), "agentchart-web-chat-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: binary.executablePath,
      env: binary.env,
      args: HEADLESS_CHROMIUM_FLAGS,
    });
  } catch (error) {
    // Every test fails with this (a throwing beforeAll would only mark them skipped).
    failure = new Error(
      "No Chromium or web chat for the end-to-end test (npm install; or set CHROMIUM_PATH)",
      {
        cause: error,
      },
    );
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await chat?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (chat) rmSync(chat.sessionRoot, { recursive: true, force: true });
});

async function openThread(threadId: string): Promise<Page> {
  if (failure) throw failure;
  if (!browser || !chat) throw new Error("not started");
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${chat.url}?thread=${threadId}`);
  await page.waitForSelector('[data-testid="status"]');
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("input", text);
  await page.click('button[type="submit"]');
}

const assistantTexts = (page: Page) =>
  page.$$eval('[data-role="assistant"]', (nodes) => nodes.map((node) => node.textContent));

const finished = (page: Page) =>
  page.waitForFunction(() => {
    const status = document.querySelector('[data-testid="status"]')?.textContent;
    return status === "idle" && !document.querySelector('[data-testid="streaming"]');
  });

/** The thread's harness once its run has ended; reads its session's last message. */
async function sessionTail(threadId: string) {
  const harness = chat?.harnesses.get(threadId);
  await harness?.waitForIdle();
  return harness?.session.buildContext().messages.at(-1);
}

describe("the web chat example in headless Chromium", () => {
  it("streams a reply into the page", async () => {
    const page = await openThread("e2e-stream");
    const seenPartial = page.waitForSelector('[data-testid="streaming"]');
    await send(page, "hello there");
    await seenPartial;
    await finished(page);
    expect(await assistantTexts(page)).toEqual(["You said: hello there"]);
    await page.close();
  });

  it("shows a tool call card waiting for approval, and runs the call once approved", async () => {
    const page = await openThread("e2e-approve");
    await send(page, "deploy the app");
    await page.click('[data-testid="tool-deploy"][data-status="awaiting-approval"] button:text("Approve")');
    await page.waitForSelector('[data-testid="tool-deploy"][data-status="done"]');
    await finished(page);
    expect(await assistantTexts(page)).toEqual([
      "I will deploy that for you once you approve.",
      "Deployed. The app is live on production.",
    ]);
    expect(await sessionTail("e2e-approve")).toMatchObject({ role: "assistant", stopReason: "stop" });
    await page.close();
  });

  it("answers a frontend tool: the colour card waits for a click, and the chosen colour finishes the run", async () => {
    const page = await openThread("e2e-colour");
    await send(page, "pick a colour for me");
    await page.waitForSelector('[data-testid="tool-pick_colour"][data-status="awaiting-client"]');
    expect(await page.textContent('[data-testid="status"]')).toBe("waiting");
    expect(
      await page.$$eval('[data-testid="colour-picker"] button', (nodes) =>
        nodes.map((node) => node.textContent),
      ),
    ).toEqual(COLOURS);
    await page.click('[data-testid="colour-picker"] button:text("plum")');
    await page.waitForSelector('[data-testid="tool-pick_colour"][data-status="done"]');
    await finished(page);
    expect(await page.$('[data-testid="colour-picker"]')).toBeNull();
    expect(await assistantTexts(page)).toEqual([
      "Pick the colour you like.",
      "You picked plum. Lovely choice!",
    ]);
    const messages = chat?.harnesses.get("e2e-colour")?.messages ?? [];
    expect(messages.find((message) => message.role === "toolResult")).toMatchObject({
      toolName: "pick_colour",
      isError: false,
      content: [{ type: "text", text: "plum" }],
    });
    expect(await sessionTail("e2e-colour")).toMatchObject({ role: "assistant", stopReason: "stop" });
    await page.close();
  });

  it("reloaded while the colour card waits, shows the card again, and answering still finishes the run", async () => {
    const page = await openThread("e2e-colour-reload");
    await send(page, "which color?");
    await page.waitForSelector('[data-testid="tool-pick_colour"][data-status="awaiting-client"]');
    await page.reload();
    await page.click('[data-testid="tool-pick_colour"][data-status="awaiting-client"] button:text("amber")');
    await finished(page);
    expect(await assistantTexts(page)).toEqual([
      "Pick the colour you like.",
      "You picked amber. Lovely choice!",
    ]);
    expect(await page.$$eval('[data-role="user"]', (nodes) => nodes.map((node) => node.textContent))).toEqual(
      ["which color?"],
    );
    expect(await sessionTail("e2e-colour-reload")).toMatchObject({
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "text", text: "You picked amber. Lovely choice!" }],
    });
    await page.close();
  });

  it("reloaded in the middle of the stream, ends in the same final state", async () => {
    const page = await openThread("e2e-reload");
    await send(page, "tell a story");
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="streaming"]')?.textContent?.length ?? 0) > 20,
    );
    const before = await page.textContent('[data-testid="streaming"]');
    expect(before?.length).toBeLessThan(STORY.length);
    await page.reload();
    await finished(page);
    expect(await assistantTexts(page)).toEqual([STORY]);
    expect(await page.$$eval('[data-role="user"]', (nodes) => nodes.map((node) => node.textContent))).toEqual(
      ["tell a story"],
    );
    expect(chat?.harnesses.get("e2e-reload")?.messages).toHaveLength(2);
    await page.close();
  });

  it("closing the page does not abort the run: the session shows it finished", async () => {
    const page = await openThread("e2e-close");
    await send(page, "tell a story");
    await page.waitForSelector('[data-testid="streaming"]');
    await page.close();
    expect(chat?.harnesses.get("e2e-close")?.agent.state.isStreaming).toBe(true);
    expect(await sessionTail("e2e-close")).toMatchObject({
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "text", text: STORY }],
    });
  });
});
