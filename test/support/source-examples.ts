import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import type { DocSnippet } from "./doc-snippets.js";

/** What a block may use without importing it. */
export interface SourceExampleScope {
  /** The names the prelude module exports. */
  preludeNames: readonly string[];
  /** The module specifier of the prelude (`./prelude.js`). */
  prelude: string;
  /** The module specifier of a source file as built (`src/a/b.ts` → `/…/dist/a/b.js`). */
  builtModuleOf(file: string): string;
}

const OPEN = /^(\s*\*\s?)```ts\s*$/;
const FENCE = /^\s*\*\s*```[a-z]+\s*$/;
const EXAMPLE_TAG = /^\s*\*\s*@example\b\s*(.*)$/;
const CLOSE = /^\s*\*\s*```\s*$/;

/**
 * Extracts every ```ts block of the doc comments of a source file, each line without its leading
 * ` * `. A block may use, without importing them, the names the file exports and the names the
 * prelude exports: the block's declarations import those it mentions and does not declare itself,
 * the file's own first.
 * Contract: synchronous, pure; throws an `Error` naming `file:line` for a block that is not closed in
 * its comment, and for an `@example` whose example is not a fenced block on the lines after it (a
 * ```ts block, or a ```text block for what is not TypeScript).
 * @example
 *   const scope = { preludeNames: ["b"], prelude: "./prelude.js", builtModuleOf: () => "/dist/a.js" };
 *   extractSourceExamples("export const a = 1;\n/**\n * ```ts\n * a + b;\n * ```\n *\/\n", "src/a.ts", scope)
 *   // → [{ file: "src/a.ts", line: 4, column: 3, code: "a + b;\n",
 *   //      declarations: 'import { a } from "/dist/a.js"; import { b } from "./prelude.js";\n', … }]
 */
export function extractSourceExamples(source: string, file: string, scope: SourceExampleScope): DocSnippet[] {
  if (!source.includes("```ts") && !source.includes("@example")) return [];
  const lines = source.split("\n");
  const own = exportedNames(ts.createSourceFile(file, source, ts.ScriptTarget.Latest));
  const snippets: DocSnippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const example = EXAMPLE_TAG.exec(lines[index]!);
    if (example && (example[1] !== "" || !FENCE.test(lines[index + 1] ?? ""))) {
      throw new Error(
        `${file}:${index + 1}: an @example must be a fenced block (\`\`\`ts) on the lines after it`,
      );
    }
    const open = OPEN.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const prefix = open[1]!;
    const body: string[] = [];
    for (index++; !CLOSE.test(lines[index] ?? ""); index++) {
      const inner = lines[index];
      if (inner === undefined || inner.includes("*/")) {
        throw new Error(`${file}:${start + 1}: a ts block not closed in its doc comment`);
      }
      body.push(inner.startsWith(prefix) ? inner.slice(prefix.length) : inner.replace(/^\s*\*/, ""));
    }
    const code = body.length === 0 ? "" : `${body.join("\n")}\n`;
    snippets.push({
      file,
      line: start + 2,
      column: prefix.length,
      code,
      declarations: importsFor(code, file, own, scope),
      declarationsLine: start + 1,
      runnable: false,
    });
  }
  return snippets;
}

/** The examples of every `.ts` file under `folder` (`src/`), files in path order. */
export function readSourceExamples(root: string, folder: string, scope: SourceExampleScope): DocSnippet[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts"))
    .sort()
    .flatMap((path) => {
      const file = relative(root, join(root, folder, path))
        .split("\\")
        .join("/");
      return extractSourceExamples(readFileSync(join(root, file), "utf8"), file, scope);
    });
}

/** The names a module exports by declaration or `export { … }` (not `export *` nor default). */
export function exportedNames(module: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of module.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        names.push(...statement.exportClause.elements.map((element) => element.name.text));
      }
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword)) continue;
    names.push(...declaredNames(statement));
  }
  return names;
}

function importsFor(code: string, file: string, own: readonly string[], scope: SourceExampleScope): string {
  const snippet = ts.createSourceFile("snippet.ts", code, ts.ScriptTarget.Latest, true);
  const declared = new Set(snippet.statements.flatMap(declaredNames));
  const used = identifiersOf(snippet);
  const wanted = (name: string) => used.has(name) && !declared.has(name);
  const fromFile = own.filter(wanted);
  const fromPrelude = scope.preludeNames.filter((name) => wanted(name) && !own.includes(name));
  const imports = [
    fromFile.length > 0 ? `import { ${fromFile.join(", ")} } from "${scope.builtModuleOf(file)}";` : "",
    fromPrelude.length > 0 ? `import { ${fromPrelude.join(", ")} } from "${scope.prelude}";` : "",
  ].filter((line) => line !== "");
  return imports.length === 0 ? "" : `${imports.join(" ")}\n`;
}

function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name));
  }
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause) return [];
    const bindings = clause.namedBindings;
    return [
      ...(clause.name ? [clause.name.text] : []),
      ...(bindings && ts.isNamespaceImport(bindings) ? [bindings.name.text] : []),
      ...(bindings && ts.isNamedImports(bindings)
        ? bindings.elements.map((element) => element.name.text)
        : []),
    ];
  }
  if (
    (ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement)) &&
    statement.name
  ) {
    return [statement.name.text];
  }
  return [];
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : bindingNames(element.name),
  );
}

/** The names a block refers to: its identifiers, but not the property names after a `.` or before a `:`. */
function identifiersOf(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (child: ts.Node): void => {
    if (ts.isIdentifier(child) && !isPropertyName(child)) names.add(child.text);
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

function isPropertyName(identifier: ts.Identifier): boolean {
  const parent = identifier.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === identifier) ||
    ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)) &&
      parent.name === identifier) ||
    (ts.isBindingElement(parent) && parent.propertyName === identifier)
  );
}
