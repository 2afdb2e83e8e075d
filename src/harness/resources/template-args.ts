/** The parts of a prompt template that expansion needs. */
export interface ExpandableTemplate {
  content: string;
}

/**
 * Splits an argument string the way a shell would, minus escapes: unquoted spaces and tabs
 * separate arguments; single or double quotes group text (and are removed); an unterminated quote
 * runs to the end; empty arguments are dropped (so `""` yields nothing).
 *
 * ```ts
 * parseTemplateArgs(`fix "the login bug" 'src/a b.ts'`); // ["fix", "the login bug", "src/a b.ts"]
 * ```
 */
export function parseTemplateArgs(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: '"' | "'" | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === " " || char === "\t" || char === "\n") {
      if (current !== "") args.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current !== "") args.push(current);
  return args;
}

const PLACEHOLDER = /\$\{@:(-?\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$([1-9]\d*)/g;

/**
 * Substitutes arguments into a template (or a raw template string), bash-style and 1-based:
 * `$1…$N` (a missing argument → ""), `$@` and `$ARGUMENTS` (all arguments joined by single
 * spaces), `${@:N}` (arguments from N on) and `${@:N:L}` (L arguments from N; N < 1 counts as 1).
 * Substitution is one pass, so text coming from an argument is never expanded again. `$0` and
 * anything else starting with `$` is left as written.
 *
 * ```ts
 * expandPromptTemplate("Review $1 focusing on ${@:2}", ["a.ts", "naming", "tests"]);
 * // "Review a.ts focusing on naming tests"
 * ```
 */
export function expandPromptTemplate(template: ExpandableTemplate | string, args: readonly string[]): string {
  const content = typeof template === "string" ? template : template.content;
  return content.replace(
    PLACEHOLDER,
    (match, sliceStart: string | undefined, sliceLength: string | undefined, index: string | undefined) => {
      if (index !== undefined) return args[Number(index) - 1] ?? "";
      if (sliceStart !== undefined) {
        const start = Math.max(1, Number(sliceStart)) - 1;
        const end = sliceLength === undefined ? undefined : start + Number(sliceLength);
        return args.slice(start, end).join(" ");
      }
      if (match === "$@" || match === "$ARGUMENTS") return args.join(" ");
      return match;
    },
  );
}
