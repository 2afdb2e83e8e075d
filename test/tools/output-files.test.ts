import { existsSync, writeFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OutputFiles } from "../../src/tools/builtin/output-files.js";

const stores: OutputFiles[] = [];
/** A store disposed after the test. */
function storeWith(limits?: ConstructorParameters<typeof OutputFiles>[0]): OutputFiles {
  const store = new OutputFiles(limits);
  stores.push(store);
  return store;
}
/** Keeps a new file of the store, counted as `bytes` bytes (its content is one byte). */
async function keepFile(store: OutputFiles, bytes: number): Promise<string> {
  const file = store.newPath();
  writeFileSync(file, "x");
  await store.keep(file, bytes);
  return file;
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stores.splice(0).map((store) => store.dispose()));
});

describe("OutputFiles paths", () => {
  it("makes fresh file paths in one private temp folder, created on first use", () => {
    const store = storeWith();
    const first = store.newPath();
    const second = store.newPath();
    const folder = path.dirname(first);
    expect(path.dirname(folder)).toBe(os.tmpdir());
    expect(path.basename(folder)).toMatch(/^agentchart-bash-/);
    expect(existsSync(folder)).toBe(true);
    expect(path.dirname(second)).toBe(folder);
    expect(path.basename(first)).toMatch(/^output-\d+-[0-9a-f]{8}\.log$/);
    expect(second).not.toBe(first);
    expect(existsSync(first)).toBe(false);
  });

  it("gives each store its own folder", () => {
    expect(path.dirname(storeWith().newPath())).not.toBe(path.dirname(storeWith().newPath()));
  });
});

describe("OutputFiles bounds", () => {
  it("keeps up to maxFiles files and deletes the oldest beyond", async () => {
    const store = storeWith({ maxFiles: 2 });
    const a = await keepFile(store, 1);
    const b = await keepFile(store, 1);
    expect([existsSync(a), existsSync(b)]).toEqual([true, true]);
    const c = await keepFile(store, 1);
    expect([existsSync(a), existsSync(b), existsSync(c)]).toEqual([false, true, true]);
  });

  it("keeps 20 files by default", async () => {
    const store = storeWith();
    const files: string[] = [];
    for (let i = 0; i < 20; i++) files.push(await keepFile(store, 1));
    expect(files.every((file) => existsSync(file))).toBe(true);
    await keepFile(store, 1);
    expect(existsSync(files[0]!)).toBe(false);
    expect(existsSync(files[1]!)).toBe(true);
  });

  it("keeps files of exactly maxTotalBytes in all, and deletes the oldest one byte over", async () => {
    const store = storeWith({ maxTotalBytes: 100 });
    const a = await keepFile(store, 60);
    const b = await keepFile(store, 40);
    expect([existsSync(a), existsSync(b)]).toEqual([true, true]);
    const c = await keepFile(store, 1);
    expect([existsSync(a), existsSync(b), existsSync(c)]).toEqual([false, true, true]);
  });

  it("deletes only as many of the oldest files as needed to get under the byte bound", async () => {
    const store = storeWith({ maxTotalBytes: 100 });
    const a = await keepFile(store, 30);
    const b = await keepFile(store, 30);
    const c = await keepFile(store, 30);
    const d = await keepFile(store, 30);
    expect([a, b, c, d].map((file) => existsSync(file))).toEqual([false, true, true, true]);
  });

  it("bounds the bytes to 100 MB by default", async () => {
    const store = storeWith();
    const big = await keepFile(store, 100 * 1024 * 1024);
    const small = await keepFile(store, 0);
    expect([existsSync(big), existsSync(small)]).toEqual([true, true]);
    const one = await keepFile(store, 1);
    expect([existsSync(big), existsSync(small), existsSync(one)]).toEqual([false, true, true]);
  });

  it("keeps files exactly maxAgeMs old and deletes older ones", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = storeWith({ maxAgeMs: 1000 });
    const old = await keepFile(store, 1);
    vi.setSystemTime(Date.now() + 1000);
    const middle = await keepFile(store, 1);
    expect([existsSync(old), existsSync(middle)]).toEqual([true, true]);
    vi.setSystemTime(Date.now() + 1);
    const fresh = await keepFile(store, 1);
    expect([existsSync(old), existsSync(middle), existsSync(fresh)]).toEqual([false, true, true]);
  });

  it("deletes files older than one hour by default", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = storeWith();
    const old = await keepFile(store, 1);
    vi.setSystemTime(Date.now() + 60 * 60 * 1000);
    const hour = await keepFile(store, 1);
    expect(existsSync(old)).toBe(true);
    vi.setSystemTime(Date.now() + 1);
    await keepFile(store, 1);
    expect([existsSync(old), existsSync(hour)]).toEqual([false, true]);
  });
});

describe("OutputFiles clean-up", () => {
  it("dispose deletes the folder; the store then makes a new one", async () => {
    const store = storeWith();
    const file = await keepFile(store, 1);
    await store.dispose();
    expect(existsSync(path.dirname(file))).toBe(false);
    const again = store.newPath();
    expect(path.dirname(again)).not.toBe(path.dirname(file));
    expect(existsSync(path.dirname(again))).toBe(true);
  });

  it("forgets the files of a disposed folder: the next bounds count only new files", async () => {
    const store = storeWith({ maxFiles: 1 });
    await keepFile(store, 1);
    await store.dispose();
    const next = await keepFile(store, 1);
    expect(existsSync(next)).toBe(true);
  });

  it("goes on when a file to delete or its folder is already gone", async () => {
    const store = storeWith({ maxFiles: 1 });
    const gone = store.newPath();
    await store.keep(gone, 1);
    await expect(keepFile(store, 1)).resolves.toBeTypeOf("string");
    await fs.rm(path.dirname(gone), { recursive: true });
    await expect(store.dispose()).resolves.toBeUndefined();
    const again = store.newPath();
    await fs.rm(path.dirname(again), { recursive: true });
    expect(() => store.removeNow()).not.toThrow();
  });

  it("disposes a store that never made a folder", async () => {
    await expect(storeWith().dispose()).resolves.toBeUndefined();
  });

  it("removeNow deletes the folder at once; the store then makes a new one", () => {
    const store = storeWith();
    const file = store.newPath();
    store.removeNow();
    expect(existsSync(path.dirname(file))).toBe(false);
    expect(path.dirname(store.newPath())).not.toBe(path.dirname(file));
    storeWith().removeNow();
  });

  it("deletes the folders of stores not disposed when the process exits", async () => {
    const kept = storeWith();
    const disposed = storeWith();
    const keptFolder = path.dirname(kept.newPath());
    const disposedFile = disposed.newPath();
    await disposed.dispose();
    const again = path.dirname(disposed.newPath());
    await disposed.dispose();
    const exitHooks = process.listeners("exit").filter((listener) => String(listener).includes("removeNow"));
    expect(exitHooks).toHaveLength(1);
    // A throwing store does not keep the others' folders.
    const broken = storeWith();
    broken.newPath();
    broken.removeNow = () => {
      throw new Error("busy");
    };
    exitHooks[0]!(0);
    expect(existsSync(keptFolder)).toBe(false);
    expect(existsSync(path.dirname(disposedFile))).toBe(false);
    expect(existsSync(again)).toBe(false);
  });
});
