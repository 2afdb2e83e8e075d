import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import Chromium from "@sparticuz/chromium";

/** A Chromium executable and the environment to start it with. */
export interface ChromiumBinary {
  executablePath: string;
  env: Record<string, string | undefined>;
}

/**
 * The Chromium the browser tests drive. `CHROMIUM_PATH`, when set, is used as is with the current
 * environment. Otherwise it is the headless Chromium that the `@sparticuz/chromium` dev dependency
 * ships inside its npm package: unpacked into the temp folder on first use (~190 MB, one or two
 * seconds), started with the NSS and expat libraries and the fonts that the same package ships, so
 * it needs only glibc and libgcc from the system (both in every Debian). Throws when the package's
 * files are missing, unpacking fails, `tar` is not on the PATH, or the unpacked binary (shared as
 * `<tmp>/chromium` by every user of the package) is not executable by this user.
 */
export async function chromiumBinary(): Promise<ChromiumBinary> {
  const override = process.env.CHROMIUM_PATH;
  if (override !== undefined && override !== "") {
    if (!existsSync(override)) throw new Error(`CHROMIUM_PATH points to ${override}, which does not exist`);
    return { executablePath: override, env: process.env };
  }
  const executablePath = await Chromium.executablePath(); // also unpacks <tmp>/fonts
  try {
    accessSync(executablePath, constants.X_OK);
  } catch (error) {
    throw new Error(
      `${executablePath} (unpacked by @sparticuz/chromium) is not executable by this user: ` +
        "set TMPDIR to a folder of your own, or CHROMIUM_PATH",
      { cause: error },
    );
  }
  const support = packagedSupportFiles();
  return {
    executablePath,
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [support.libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_FILE: support.fontConfig,
    },
  };
}

/**
 * Unpacks the package's `al2023.tar.br` (libnss3, libnspr4, libexpat and friends, built for Amazon
 * Linux 2023 and glibc ≥ 2.34) and writes a fontconfig file naming the unpacked fonts. Done once
 * per package version; a staging folder renamed into place keeps concurrent runs from seeing half a
 * folder.
 */
function packagedSupportFiles(): { libraries: string; fontConfig: string } {
  const packageRoot = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "../..");
  const { version } = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as {
    version: string;
  };
  const folder = join(tmpdir(), `agentchart-chromium-support-${version}`);
  const result = { libraries: join(folder, "lib"), fontConfig: join(folder, "fonts.conf") };
  if (existsSync(folder)) return result;

  const staging = mkdtempSync(`${folder}.staging-`);
  try {
    const tar = spawnSync("tar", ["-x", "-C", staging], {
      input: brotliDecompressSync(readFileSync(join(packageRoot, "bin", "al2023.tar.br"))),
    });
    if (tar.error) throw tar.error;
    if (tar.status !== 0) throw new Error(`tar failed unpacking al2023.tar.br: ${String(tar.stderr)}`);
    const fonts = join(tmpdir(), "fonts");
    writeFileSync(
      join(staging, "fonts.conf"),
      `<?xml version="1.0"?>\n<fontconfig>\n  <dir>${fonts}</dir>\n  <cachedir>${fonts}-cache</cachedir>\n</fontconfig>\n`,
    );
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(folder)) throw error; // else another run finished first
  }
  return result;
}

/** Flags for a quiet headless run of the binary from `chromiumBinary()`. */
export const HEADLESS_CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
