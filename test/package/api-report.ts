/**
 * The API report of an entry point: every exported name with its declaration as a consumer sees it —
 * a function's parameters and return type, an interface's or a type's whole text, a class's public
 * members, a constant's type — printed from the source without bodies, comments or private members.
 * A changed signature changes the report, so it shows in review.
 */
import ts from "typescript";

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The report of the module `source`: one section per export, sorted by name. */
export function apiReport(title: string, source: ts.SourceFile, checker: ts.TypeChecker): string {
  const exports = checker
    .getExportsOfModule(checker.getSymbolAtLocation(source)!)
    .sort((a, b) => a.getName().localeCompare(b.getName()));
  const sections = exports.map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declarations = (target.declarations ?? []).map((node) => declarationText(node, checker));
    const renamed = target.getName() !== symbol.getName() ? ` (${target.getName()})` : "";
    return `### \`${symbol.getName()}\`${renamed}\n\n\`\`\`ts\n${declarations.join("\n")}\n\`\`\``;
  });
  const report = `# \`${title}\`\n\n${exports.length} exports.\n\n${sections.join("\n\n")}\n`;
  // Inferred types name what their scope cannot by module path; the path is the machine's, not the API's.
  return report.replace(/import\("[^"]*"\)\./g, "");
}

function declarationText(node: ts.Declaration, checker: ts.TypeChecker): string {
  const sourceFile = node.getSourceFile();
  const print = (printed: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, printed, sourceFile);
  if (ts.isFunctionDeclaration(node)) return print(withoutBody(node, checker));
  if (ts.isClassDeclaration(node)) return print(publicShape(node, checker));
  if (ts.isVariableDeclaration(node)) {
    const type = node.type
      ? print(node.type)
      : checker.typeToString(checker.getTypeAtLocation(node), node, ts.TypeFormatFlags.NoTruncation);
    return `const ${node.name.getText()}: ${type};`;
  }
  if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node))
    return print(withoutModifiers(node));
  return print(node);
}

/** A function's declaration without its body, its return type inferred when not written. */
function withoutBody(node: ts.FunctionDeclaration, checker: ts.TypeChecker): ts.FunctionDeclaration {
  return ts.factory.updateFunctionDeclaration(
    node,
    undefined,
    node.asteriskToken,
    node.name,
    node.typeParameters,
    node.parameters.map(withoutInitializer),
    node.type ?? inferredReturnType(node, checker),
    undefined,
  );
}

function inferredReturnType(node: ts.SignatureDeclaration, checker: ts.TypeChecker): ts.TypeNode | undefined {
  const signature = checker.getSignatureFromDeclaration(node);
  if (!signature) return undefined;
  return checker.typeToTypeNode(
    checker.getReturnTypeOfSignature(signature),
    node,
    ts.NodeBuilderFlags.NoTruncation,
  );
}

/** A class as a consumer sees it: its public members, without bodies or initial values. */
function publicShape(node: ts.ClassDeclaration, checker: ts.TypeChecker): ts.ClassDeclaration {
  const members = node.members.flatMap((member): ts.ClassElement[] => {
    if (member.name && ts.isPrivateIdentifier(member.name)) return [];
    const modifiers = (ts.canHaveModifiers(member) && ts.getModifiers(member)) || [];
    if (
      modifiers.some(
        (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
      )
    )
      return [];
    if (ts.isMethodDeclaration(member))
      return [
        ts.factory.updateMethodDeclaration(
          member,
          member.modifiers,
          member.asteriskToken,
          member.name,
          member.questionToken,
          member.typeParameters,
          member.parameters.map(withoutInitializer),
          member.type ?? inferredReturnType(member, checker),
          undefined,
        ),
      ];
    if (ts.isConstructorDeclaration(member))
      return [
        ts.factory.updateConstructorDeclaration(
          member,
          member.modifiers,
          member.parameters.map(withoutInitializer),
          undefined,
        ),
      ];
    if (ts.isPropertyDeclaration(member))
      return [
        ts.factory.updatePropertyDeclaration(
          member,
          member.modifiers,
          member.name,
          member.questionToken ?? member.exclamationToken,
          member.type ??
            checker.typeToTypeNode(
              checker.getTypeAtLocation(member),
              member,
              ts.NodeBuilderFlags.NoTruncation,
            ),
          undefined,
        ),
      ];
    if (ts.isGetAccessorDeclaration(member))
      return [
        ts.factory.updateGetAccessorDeclaration(
          member,
          member.modifiers,
          member.name,
          [],
          member.type ?? inferredReturnType(member, checker),
          undefined,
        ),
      ];
    if (ts.isSetAccessorDeclaration(member))
      return [
        ts.factory.updateSetAccessorDeclaration(
          member,
          member.modifiers,
          member.name,
          member.parameters.map(withoutInitializer),
          undefined,
        ),
      ];
    if (ts.isClassStaticBlockDeclaration(member)) return [];
    return [member];
  });
  return ts.factory.updateClassDeclaration(
    node,
    undefined,
    node.name,
    node.typeParameters,
    node.heritageClauses,
    members,
  );
}

function withoutInitializer(parameter: ts.ParameterDeclaration): ts.ParameterDeclaration {
  if (!parameter.initializer) return parameter;
  return ts.factory.updateParameterDeclaration(
    parameter,
    parameter.modifiers,
    parameter.dotDotDotToken,
    parameter.name,
    ts.factory.createToken(ts.SyntaxKind.QuestionToken),
    parameter.type,
    undefined,
  );
}

function withoutModifiers<T extends ts.InterfaceDeclaration | ts.TypeAliasDeclaration | ts.EnumDeclaration>(
  node: T,
): ts.Node {
  if (ts.isInterfaceDeclaration(node))
    return ts.factory.updateInterfaceDeclaration(
      node,
      undefined,
      node.name,
      node.typeParameters,
      node.heritageClauses,
      node.members,
    );
  if (ts.isTypeAliasDeclaration(node))
    return ts.factory.updateTypeAliasDeclaration(node, undefined, node.name, node.typeParameters, node.type);
  return ts.factory.updateEnumDeclaration(node, undefined, node.name, node.members);
}
