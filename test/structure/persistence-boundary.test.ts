// The persistence boundary, checked from the sources: outside src/store/ no module loads a SQL
// driver, calls a method of a database or statement object, or reaches past the store's public
// modules (so the SQLite store's database handle cannot be handed around). Calls are judged by
// the type of what they are made on (TypeScript's checker), not by name: a RegExp's `exec` and
// the store's own `transaction` are fine, `db.prepare` is not whatever the variable is called.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STORE = path.join(ROOT, 'src/store') + path.sep;
/** What code outside src/store/ may import from it. */
const PUBLIC_STORE_MODULES = ['state-store.ts', 'render-cache-file.ts'].map((f) => path.join(STORE, f));
const SQL_DRIVERS = new Set(['better-sqlite3', 'node:sqlite', 'pg']);
/** Method names of a database object: flagged when called on something untyped (`any`). */
const DB_METHOD_NAMES = new Set(['prepare', 'exec', 'transaction', 'pragma']);
const FIXTURE = path.join(ROOT, 'test/structure/fixtures/outside-the-store.ts');

interface Violation {
  file: string;
  line: number;
  rule: 'driver' | 'db-call' | 'store-internals';
  text: string;
}

function sourcesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|mts|mjs|js)$/.test(f))
    .map((f) => path.join(dir, f));
}

function createProgram(files: string[]): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  return ts.createProgram(files, { ...config.options, allowJs: true, noEmit: true });
}

/** Whether a declaration comes from a SQL driver's typings. */
function isDriverDeclaration(decl: ts.Declaration): boolean {
  const file = decl.getSourceFile().fileName;
  return (
    file.includes('/better-sqlite3/') ||
    file.includes('/@types/pg/') ||
    file.includes('/node_modules/pg/') ||
    /\/@types\/node\/sqlite\.d\.ts$/.test(file)
  );
}

function violations(program: ts.Program, files: string[]): Violation[] {
  const checker = program.getTypeChecker();
  const found: Violation[] = [];
  for (const fileName of files) {
    if (fileName.startsWith(STORE)) continue;
    const source = program.getSourceFile(fileName);
    if (!source) throw new Error(`${fileName} is not in the program`);
    const report = (node: ts.Node, rule: Violation['rule']) =>
      found.push({
        file: path.relative(ROOT, fileName),
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        rule,
        text: node.getText().slice(0, 80),
      });
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteralLike(node)) {
        if (SQL_DRIVERS.has(node.text)) report(node, 'driver');
        const parent = node.parent;
        const isSpecifier =
          (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) && parent.moduleSpecifier === node;
        const isDynamic = ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.ImportKeyword;
        if ((isSpecifier || isDynamic) && node.text.startsWith('.')) {
          const target = path.resolve(path.dirname(fileName), node.text);
          if (target.startsWith(STORE) && !PUBLIC_STORE_MODULES.includes(target)) report(node, 'store-internals');
        }
      }
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const callee = node.expression;
        const declarations = checker.getSymbolAtLocation(callee.name)?.declarations ?? [];
        const onAny = (checker.getTypeAtLocation(callee.expression).flags & ts.TypeFlags.Any) !== 0;
        if (declarations.some(isDriverDeclaration) || (onAny && DB_METHOD_NAMES.has(callee.name.text)))
          report(node, 'db-call');
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('persistence boundary', () => {
  it('outside src/store/: no SQL driver, no call on a database or statement, only the store’s public modules', {
    timeout: 120_000,
  }, () => {
    const files = [...sourcesUnder(path.join(ROOT, 'src')), ...sourcesUnder(path.join(ROOT, 'scripts'))];
    expect(violations(createProgram(files), files)).toEqual([]);
  });

  it('the check finds each kind of breach, and leaves look-alikes alone', { timeout: 120_000 }, () => {
    const found = violations(createProgram([FIXTURE]), [FIXTURE]).map((v) => `${v.line} ${v.rule}`);
    expect(found).toEqual([
      '4 driver', // import Database from 'better-sqlite3'
      '7 store-internals', // the SQLite implementation, with its database handle
      '11 db-call', // db.prepare(…)
      '11 db-call', // ….get() on the statement
      '12 db-call', // db.exec(…)
      '13 db-call', // db.transaction(…)
      '14 driver', // createRequire(…)('better-sqlite3')
      '16 db-call', // prepare on an untyped object
    ]);
  });
});
