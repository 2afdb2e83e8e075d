import { readFileSync } from "node:fs";

/**
 * One ```ts block of a Markdown page, with what the comment before it says about it
 * (`<!-- snippet: … -->`, see docs/testing.md "Snippets in the docs").
 */
export interface DocSnippet {
  /** The page, relative to the repository root (`docs/sessions.md`). */
  file: string;
  /** 1-based line of the block's first code line in the page. */
  line: number;
  /** Characters cut from the start of each line in the page (a doc comment's ` * `); 0 when absent. */
  column?: number;
  code: string;
  /** Declarations from a `fragment` marker, prepended when the block is type-checked. */
  declarations: string;
  /** 1-based line in the page where the declarations start (0 without declarations). */
  declarationsLine: number;
  /** Marked `runnable`: the test also runs it. */
  runnable: boolean;
  /** The text of a ```text block marked `output` right after a runnable block: what it must print. */
  expectedOutput?: string;
}

/** `file:line` of a snippet, the way editors and terminals link to it. */
export function snippetLocation(snippet: Pick<DocSnippet, "file" | "line">): string {
  return `${snippet.file}:${snippet.line}`;
}

const FENCE = /^(\s*)(`{3,})(\S*)\s*$/;
const MARKER = /^\s*<!--\s*snippet:\s*([a-z]+(?:\s*,\s*[a-z]+)*)([\s\S]*?)-->\s*$/;
const KNOWN_FLAGS = new Set(["runnable", "fragment", "output"]);

interface Marker {
  flags: Set<string>;
  body: string;
  /** 1-based line of the marker's first line. */
  line: number;
  /** 1-based line where the declarations start. */
  bodyLine: number;
}

/**
 * Extracts every ```ts block of a Markdown page, with the marker comment right before it (blank lines
 * between them are allowed).
 * Contract: synchronous, pure; throws an `Error` naming `file:line` for an unknown marker flag, an
 * unclosed fence or comment, an `output` marker not after a runnable block, or a `fragment` marker
 * without declarations.
 * @example
 *   extractSnippets("<!-- snippet: runnable -->\n```ts\nconsole.log(1);\n```\n", "a.md")
 *   // → [{ file: "a.md", line: 3, code: "console.log(1);\n", runnable: true, … }]
 */
export function extractSnippets(markdown: string, file: string): DocSnippet[] {
  const lines = markdown.split("\n");
  const snippets: DocSnippet[] = [];
  let pending: Marker | undefined;
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    if (text.trimStart().startsWith("<!--") && /<!--\s*snippet:/.test(text)) {
      const start = index;
      let comment = text;
      while (!comment.includes("-->")) {
        index++;
        if (index >= lines.length) throw new Error(`${file}:${start + 1}: unclosed snippet comment`);
        comment += `\n${lines[index]}`;
      }
      pending = parseMarker(comment, file, start + 1);
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) {
      if (text.trim() !== "") pending = undefined;
      continue;
    }
    const [, indent = "", ticks = "", info = ""] = fence;
    const start = index;
    const body: string[] = [];
    for (index++; ; index++) {
      if (index >= lines.length) throw new Error(`${file}:${start + 1}: unclosed code fence`);
      const inner = lines[index]!;
      if (inner.trim() === ticks) break;
      body.push(inner.startsWith(indent) ? inner.slice(indent.length) : inner);
    }
    const code = body.length === 0 ? "" : `${body.join("\n")}\n`;
    const marker = pending;
    pending = undefined;
    if (marker?.flags.has("output")) {
      const previous = snippets.at(-1);
      if (!previous?.runnable || previous.expectedOutput !== undefined) {
        throw new Error(`${file}:${marker.line}: an output block must follow a runnable ts block`);
      }
      previous.expectedOutput = code;
      continue;
    }
    if (info !== "ts") {
      if (marker) throw new Error(`${file}:${marker.line}: a snippet marker must precede a ts block`);
      continue;
    }
    snippets.push({
      file,
      line: start + 2,
      code,
      declarations: marker?.flags.has("fragment") ? marker.body : "",
      declarationsLine: marker?.flags.has("fragment") ? marker.bodyLine : 0,
      runnable: marker?.flags.has("runnable") ?? false,
    });
  }
  return snippets;
}

/** Reads a page and extracts its snippets (see {@link extractSnippets}); `file` is also its name. */
export function readSnippets(path: string, file: string): DocSnippet[] {
  return extractSnippets(readFileSync(path, "utf8"), file);
}

function parseMarker(comment: string, file: string, line: number): Marker {
  const match = MARKER.exec(comment);
  if (!match) throw new Error(`${file}:${line}: unreadable snippet comment ${JSON.stringify(comment)}`);
  const flags = new Set(match[1]!.split(",").map((flag) => flag.trim()));
  for (const flag of flags) {
    if (!KNOWN_FLAGS.has(flag)) throw new Error(`${file}:${line}: unknown snippet flag "${flag}"`);
  }
  // Declarations follow the flags on the same line (`<!-- snippet: fragment declare const a: A -->`)
  // or on the lines after it.
  let body = match[2]!.replace(/^[ \t]+/, "");
  let bodyLine = line;
  if (body.startsWith("\n")) {
    body = body.slice(1);
    bodyLine++;
  }
  body = body.replace(/\s+$/, "");
  if (flags.has("fragment") === (body === "")) {
    throw new Error(
      `${file}:${line}: ${body === "" ? "a fragment marker needs declarations" : "only a fragment marker takes declarations"}`,
    );
  }
  return { flags, body: body === "" ? "" : `${body}\n`, line, bodyLine };
}
