// Builds the package's kits for site owners, each into its own folder for the package's
// `exports`: one ES module per entry and declarations under <folder>/types/ (Node does not run
// TypeScript from node_modules, and browsers, Workers and framework bundlers never do).
//   client/    `quire/client`        the Content API client (src/client/)
//   receiver/  `quire/receiver`      verifyWebhook and verifyPreviewToken on node:crypto
//              `quire/receiver/web`  the same on Web Crypto, for edge runtimes and Workers
//   astro/     `quire/astro`         the Astro content loader (src/astro/)
// Run by `npm install` (the `prepare` script), so a packed tarball carries them.
// `platform: 'neutral'` resolves no Node built-in: the build fails if such an entry imports one.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Each kit: its folder, its entries (output name → source, platform) and what stays an import. */
const KITS = {
  client: { entries: { index: ['src/client/index.ts', 'neutral'] }, external: [] },
  receiver: {
    entries: {
      index: ['src/receiver/verify-webhook.ts', 'node'],
      web: ['src/receiver/verify-webhook-web.ts', 'neutral'],
    },
    external: [],
  },
  // zod stays a dependency (Quire's own), so the collection's schema is the contract's, not a copy.
  astro: { entries: { index: ['src/astro/index.ts', 'neutral'] }, external: ['zod'] },
};

async function buildKit(name, outDir = path.join(ROOT, name)) {
  const kit = KITS[name];
  fs.rmSync(outDir, { recursive: true, force: true });
  for (const [out, [entry, platform]] of Object.entries(kit.entries)) {
    await build({
      entryPoints: [path.join(ROOT, entry)],
      outfile: path.join(outDir, `${out}.js`),
      bundle: true,
      format: 'esm',
      platform,
      target: 'es2022',
      external: kit.external,
      // esbuild's neutral platform reads no package.json `main`; zod (external) needs none.
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
  }
  await emitDeclarations(
    Object.values(kit.entries).map(([entry]) => path.join(ROOT, entry)),
    path.join(outDir, 'types'),
  );
  return outDir;
}

export const buildClient = (outDir) => buildKit('client', outDir);
export const buildReceiver = (outDir) => buildKit('receiver', outDir);
export const buildAstro = (outDir) => buildKit('astro', outDir);

async function emitDeclarations(entries, typesDir) {
  const { default: ts } = await import('typescript');
  const program = ts.createProgram(entries, {
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
  if (emitSkipped)
    throw new Error(
      `kit declarations: ${ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' })}`,
    );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const name of Object.keys(KITS)) await buildKit(name);
}
