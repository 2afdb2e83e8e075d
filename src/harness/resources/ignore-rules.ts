/**
 * A small `.gitignore`-style matcher used by skill discovery. Supported: comments (`#`), blank
 * lines, negation (`!`), `\` escapes of a leading `#`/`!`, directory-only patterns (`dir/`),
 * anchored patterns (containing a `/`), `*`, `?`, `**` and `[...]` classes. Paths are `/`-separated
 * and relative to the discovery root.
 */
export interface IgnoreRule {
  pattern: RegExp;
  negated: boolean;
  directoryOnly: boolean;
}

/**
 * Parses the text of an ignore file found in `baseDir` (relative to the root, "" for the root
 * itself) into rules re-rooted at the discovery root.
 */
export function parseIgnoreFile(text: string, baseDir: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  const prefix = baseDir === "" ? "" : `${escapeRegExp(baseDir)}/`;
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    let negated = false;
    if (line.startsWith("!")) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith("\\")) {
      line = line.slice(1);
    }
    let directoryOnly = false;
    if (line.endsWith("/")) {
      directoryOnly = true;
      line = line.replace(/\/+$/, "");
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    const body = globToRegExp(line.replace(/^\//, ""));
    const source = anchored ? `^${prefix}${body}$` : `^${prefix}(?:.*/)?${body}$`;
    rules.push({ pattern: new RegExp(source), negated, directoryOnly });
  }
  return rules;
}

/** Whether `relativePath` is ignored: the last matching rule decides. */
export function isIgnored(rules: readonly IgnoreRule[], relativePath: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.pattern.test(relativePath)) ignored = !rule.negated;
  }
  return ignored;
}

function globToRegExp(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const followedBySlash = glob[i + 2] === "/";
        if (atSegmentStart && followedBySlash) {
          out += "(?:.*/)?";
          i += 2;
          continue;
        }
        out += ".*";
        i += 1;
        continue;
      }
      out += "[^/]*";
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      const inner = glob
        .slice(i + 1, close)
        .replace(/^!/, "^")
        .replace(/\\/g, "\\\\");
      out += `[${inner}]`;
      i = close;
    } else if (char === "\\" && i + 1 < glob.length) {
      out += escapeRegExp(glob[i + 1] as string);
      i += 1;
    } else {
      out += escapeRegExp(char);
    }
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
