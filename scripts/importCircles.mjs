// The circles import-x/no-cycle does not see. That rule leaves type-only imports out of its walk (`import type`,
// `import { type A }`, `export type … from`), so two files that import each other's types pass it; the plugin has no
// option to count them. `chatflux/no-type-import-cycle` walks every import a file makes, type-only ones included, and
// reports each import that closes a circle import-x/no-cycle would miss (a value circle stays import-x/no-cycle's
// report, so no circle is reported twice). eslint.config.mjs turns it on for src/; docs/ARCHITECTURE.md explains it.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import ts from 'typescript';

/** The compiler options of the tsconfig.json nearest above `dir` (its `paths` and module resolution). */
const optionsCache = new Map();
function compilerOptionsFor(dir) {
  const configFile = ts.findConfigFile(dir, ts.sys.fileExists, 'tsconfig.json');
  if (configFile === undefined) return {};
  let options = optionsCache.get(configFile);
  if (options === undefined) {
    const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
    options = ts.convertCompilerOptionsFromJson(config?.compilerOptions ?? {}, dirname(configFile)).options;
    optionsCache.set(configFile, options);
  }
  return options;
}

/** The project file `specifier` names from `file`, or undefined (a package, or nothing). */
function resolveImport(specifier, file) {
  const { resolvedModule } = ts.resolveModuleName(specifier, file, compilerOptionsFor(dirname(file)), ts.sys);
  if (resolvedModule === undefined || resolvedModule.isExternalLibraryImport === true) return undefined;
  return resolvedModule.resolvedFileName;
}

const allTypeOnly = (elements) => elements.length > 0 && elements.every((element) => element.isTypeOnly);

/** Every module `source` names, with whether it uses only the types of it. */
function importsInSource(source) {
  const found = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && allTypeOnly(bindings.elements)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && allTypeOnly(clause.elements)) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteral(argument)) found.push({ specifier: argument.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The project files a file imports, read from disk; cached until the file changes. */
const edgesCache = new Map();
function edgesOf(file) {
  let mtimeMs;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = edgesCache.get(file);
  if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.edges;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edges = [];
  for (const { specifier, typeOnly } of importsInSource(source)) {
    const target = resolveImport(specifier, file);
    if (target !== undefined) edges.push({ target, typeOnly });
  }
  edgesCache.set(file, { mtimeMs, edges });
  return edges;
}

/** The files of a shortest chain of imports from `from` to `to` (both included), or undefined. */
function chainOf(from, to, valueOnly) {
  const cameFrom = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const { target, typeOnly } of edgesOf(file)) {
      if ((valueOnly && typeOnly) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === to) {
        const chain = [to];
        for (let at = file; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
        return chain;
      }
      queue.push(target);
    }
  }
  return undefined;
}

const specifiersTypeOnly = (specifiers, kind) => specifiers.length > 0 && specifiers.every((specifier) => specifier[kind] === 'type');

/** @type {import('eslint').Rule.RuleModule} */
const noTypeImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid a circle of imports that import-x/no-cycle skips because a type-only import closes it.' },
    schema: [],
    messages: {
      cycle:
        'Import circle through type-only imports (import-x/no-cycle does not count them): {{chain}}. ' +
        'Move the shared types to a file of their own that both sides import, or let one module own what both change.',
    },
  },
  create(context) {
    const filename = context.physicalFilename;
    if (filename === '<text>') return {};
    const root = context.cwd;
    const check = (node, sourceNode, typeOnly) => {
      if (sourceNode?.type !== 'Literal' || typeof sourceNode.value !== 'string') return;
      const target = resolveImport(sourceNode.value, filename);
      if (target === undefined || target === filename) return;
      const chain = chainOf(target, filename, false);
      if (chain === undefined) return;
      if (!typeOnly && chainOf(target, filename, true) !== undefined) return; // a value circle: import-x/no-cycle's
      context.report({ node, messageId: 'cycle', data: { chain: [filename, ...chain].map((file) => relative(root, file)).join(' → ') } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type' || specifiersTypeOnly(node.specifiers, 'importKind')),
      ExportNamedDeclaration: (node) => {
        if (node.source !== null) check(node, node.source, node.exportKind === 'type' || specifiersTypeOnly(node.specifiers, 'exportKind'));
      },
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument, true),
      TSImportEqualsDeclaration: (node) => {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node, node.moduleReference.expression, node.importKind === 'type');
      },
    };
  },
};

/** The ESLint plugin eslint.config.mjs registers as `chatflux`. */
export const importCircles = { rules: { 'no-type-import-cycle': noTypeImportCycle } };

