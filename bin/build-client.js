// Builds `quire/client` (src/client/) for the package's `exports`: one ES module, client/index.js
// (Node does not run TypeScript from node_modules, and browsers and Workers never do), and its
// declarations under client/types/ (the contract's types the client names come along).
// Run by `npm install` (the `prepare` script), so a packed tarball carries both.
// `platform: 'neutral'` resolves no Node built-in: the build fails if the client ever imports one.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'src/client/index.ts');

export async function buildClient(outDir = path.join(ROOT, 'client')) {
  fs.rmSync(outDir, { recursive: true, force: true });
  await build({ entryPoints: [ENTRY], outfile: path.join(outDir, 'index.js'), bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'silent' });
  await emitDeclarations(path.join(outDir, 'types'));
  return outDir;
}

async function emitDeclarations(typesDir) {
  const { default: ts } = await import('typescript');
  const program = ts.createProgram([ENTRY], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir: typesDir,
    rootDir: path.join(ROOT, 'src'),
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: ['node'],
  });
  // Declarations name their neighbours as `./x.js`, which every TypeScript resolves to x.d.ts.
  const { emitSkipped, diagnostics } = program.emit(undefined, (file, text) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text.replace(/(from '\.{1,2}\/[^']*)\.ts'/g, "$1.js'"));
  });
  if (emitSkipped) throw new Error(`client declarations: ${ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' })}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildClient();
