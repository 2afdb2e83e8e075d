import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CommandOutput } from "../../src/tools/builtin/command-output.js";
import { OutputFiles } from "../../src/tools/builtin/output-files.js";

describe("CommandOutput", () => {
  const files = new OutputFiles();
  afterEach(() => files.dispose());

  it("holds at most twice the byte limit in memory, whatever the chunks", async () => {
    const output = new CommandOutput(files, 1000);
    output.append(Buffer.alloc(50_000, 0xff)); // one chunk far over the limit, invalid UTF-8
    expect(output.retainedBytes).toBe(2000);
    for (let i = 0; i < 500; i++) output.append(Buffer.alloc(999, i % 2 === 0 ? 0 : 0x61));
    expect(output.retainedBytes).toBeLessThanOrEqual(2000);
    const preview = output.preview();
    expect(Buffer.byteLength(preview.text)).toBeLessThanOrEqual(1000);
    expect(preview).toMatchObject({ totalBytes: 50_000 + 500 * 999, totalLines: 1, truncated: true });
    const { fullOutputPath } = await output.finish();
    expect(readFileSync(fullOutputPath as string).length).toBe(50_000 + 500 * 999);
  });

  it("keeps no file when nothing was cut", async () => {
    const output = new CommandOutput(files, 1000);
    output.append(Buffer.from("short\n"));
    expect(await output.finish()).toMatchObject({ truncation: { truncated: false, text: "short\n" } });
  });
});

describe("OutputFiles", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const makeFile = async (files: OutputFiles, bytes: number) => {
    const file = files.newPath();
    writeFileSync(file, Buffer.alloc(bytes));
    await files.keep(file, bytes);
    return file;
  };

  it("deletes the oldest files over the byte bound but always keeps the newest", async () => {
    const files = new OutputFiles({ maxTotalBytes: 100 });
    const a = await makeFile(files, 60);
    const b = await makeFile(files, 30);
    expect([existsSync(a), existsSync(b)]).toEqual([true, true]);
    const c = await makeFile(files, 200);
    expect([existsSync(a), existsSync(b), existsSync(c)]).toEqual([false, false, true]);
    await files.dispose();
    expect(existsSync(c)).toBe(false);
  });

  it("deletes files older than the age bound when a new one is kept", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const files = new OutputFiles({ maxAgeMs: 60_000 });
    const old = await makeFile(files, 10);
    vi.setSystemTime(Date.now() + 30_000);
    const middle = await makeFile(files, 10);
    vi.setSystemTime(Date.now() + 40_000);
    const fresh = await makeFile(files, 10);
    expect([existsSync(old), existsSync(middle), existsSync(fresh)]).toEqual([false, true, true]);
    await files.dispose();
  });
});
