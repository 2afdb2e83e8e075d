import { readFile } from "node:fs/promises";
import { resolveOptionalPeer } from "../types/optional-peer.js";

/**
 * Loads the page's ES modules from `./page/`. In a build (`dist/inspector/page/*.js`) they are
 * served as compiled by `tsc`. In a source checkout (tests, `tsx`) only the `.ts` files exist; they
 * are then transpiled once with the `typescript` dev dependency. `elk.js` is the layout engine, read
 * from the installed `elkjs` package (an optional peer). Either way nothing comes from the network.
 */

const ASSET_NAME = /^[a-z][a-z0-9-]*\.js$/;
const pageDirectory = new URL("./page/", import.meta.url);

interface TypeScriptTranspiler {
  transpileModule(
    source: string,
    options: { compilerOptions: Record<string, unknown>; fileName?: string },
  ): { outputText: string };
  ScriptTarget: { ES2022: number };
  ModuleKind: { ESNext: number };
}

let transpiler: Promise<TypeScriptTranspiler> | undefined;
const cache = new Map<string, Promise<string | undefined>>();

/**
 * Returns the JavaScript source of the page module `name` (e.g. `"main.js"`), or `undefined` when
 * there is no such module. Names are restricted to `[a-z0-9-]+.js`, so no path escapes `./page/`.
 */
export function loadPageAsset(name: string): Promise<string | undefined> {
  if (!ASSET_NAME.test(name)) return Promise.resolve(undefined);
  let asset = cache.get(name);
  if (!asset) {
    asset = readPageModule(name);
    cache.set(name, asset);
    asset.catch(() => cache.delete(name));
  }
  return asset;
}

async function readPageModule(name: string): Promise<string | undefined> {
  if (name === "elk.js") return readElkModule();
  const compiled = await readIfExists(new URL(name, pageDirectory));
  if (compiled !== undefined) return compiled;
  const sourceName = name.replace(/\.js$/, ".ts");
  const source = await readIfExists(new URL(sourceName, pageDirectory));
  if (source === undefined) return undefined;
  const ts = await loadTranspiler();
  return ts.transpileModule(source, {
    fileName: sourceName,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
    },
  }).outputText;
}

const elkBundlePath = () => resolveOptionalPeer("elkjs", "the inspector server", "elkjs/lib/elk.bundled.js");

/**
 * Throws a MissingPeerDependencyError when elkjs, which lays out the page's diagrams, is not
 * installed — so that the server fails when it starts, not when a page asks for the layout engine.
 */
export function assertLayoutEngineInstalled(): void {
  elkBundlePath();
}

/**
 * elkjs's browser bundle (a UMD script, ~1.6 MB) as an ES module: given a local `module` object the
 * bundle assigns the ELK class to `module.exports`, which becomes the default export.
 */
async function readElkModule(): Promise<string> {
  const bundle = await readFile(elkBundlePath(), "utf8");
  return `const module = { exports: {} };\nconst exports = module.exports;\n${bundle}\nexport default module.exports;\n`;
}

function loadTranspiler(): Promise<TypeScriptTranspiler> {
  // A variable specifier keeps bundlers and `tsc` from treating typescript as a runtime dependency.
  const specifier = "typescript";
  transpiler ??= import(specifier).then(
    (module: { default?: TypeScriptTranspiler } & TypeScriptTranspiler) => module.default ?? module,
    (error: unknown) => {
      transpiler = undefined;
      throw new Error(
        `The inspector page is not built (no .js files in ${pageDirectory.pathname}) and "typescript" ` +
          "is not installed to transpile its sources. Run the package build, or install typescript.",
        { cause: error },
      );
    },
  );
  return transpiler;
}

async function readIfExists(url: URL): Promise<string | undefined> {
  try {
    return await readFile(url, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
