// The structure of src/, checked from its imports (type-only imports included): `npm run
// check:structure`, also run by `npm test`. Dependencies point inward: the command line (the
// entry points) → src/app/ (the composition root) → what serves and delivers → what builds
// and keeps state → the foundations. See docs/ARCHITECTURE.md.

/**
 * Every folder of src/, in the layer it belongs to. A layer's rules are below; a folder in none
 * would escape them all, so one is refused (the unlayered-folder rules, and
 * test/structure/layers.test.ts for a folder that imports nothing of src/ and nothing imports).
 * docs/ARCHITECTURE.md ("Folders") names the same layers with the same members.
 */
const LAYERS = {
  /** Where a process starts: the command line, and the Worker at the edge (its own composition root). */
  'entry points': ['cli', 'edge'],
  /** Opens what a process needs; only the command line takes it. */
  'composition root': ['app'],
  /** What serves, delivers, deploys and watches: above the model, below the composition root. */
  SERVICES: ['api', 'admin', 'mcp', 'publish', 'delivery', 'follow', 'observe', 'integration', 'server', 'deploy'],
  /** What an article is, the compiler, the export format and its writer, what is served, keys and state: below everything that serves or delivers them. */
  MODEL: ['articles', 'compile', 'export', 'snapshot', 'keys', 'store'],
  /** Folders that import only each other: what the content pipeline and every client is made of. */
  FOUNDATIONS: [
    'text',
    'cache',
    'config',
    'problems',
    'content',
    'contract',
    'git',
    'render',
    'net',
    'verify',
    'schedule',
    'host',
    'report',
  ],
  /** Site owners' code: packages of their own, each kept to what it may take by its rules. */
  kits: ['receiver', 'client', 'astro'],
};

/** One layer's folders as a path alternative: `(text|cache|…)`. */
const anyOf = (folders) => `(${folders.join('|')})`;
const FOUNDATIONS = anyOf(LAYERS.FOUNDATIONS);
const MODEL = anyOf(LAYERS.MODEL);
const SERVICES = anyOf(LAYERS.SERVICES);
/** A module in a folder that some layer names. */
const IN_A_LAYER = `^src/${anyOf(Object.values(LAYERS).flat())}/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that cannot be understood, tested or moved one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Folders that need each other are one module in two places.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'unlayered-folder-imports',
      severity: 'error',
      comment:
        'A folder of src/ in no layer escapes every rule of the layers: name it in LAYERS (and in docs/ARCHITECTURE.md).',
      from: { path: '^src/', pathNot: IN_A_LAYER },
      to: {},
    },
    {
      name: 'unlayered-folder-imported',
      severity: 'error',
      comment:
        'A folder of src/ in no layer escapes every rule of the layers: name it in LAYERS (and in docs/ARCHITECTURE.md).',
      from: {},
      to: { path: '^src/', pathNot: IN_A_LAYER },
    },
    {
      name: 'cli-is-the-entry-point',
      severity: 'error',
      comment: 'src/cli/ (argv, terminals, commands) is where a process starts; nothing imports it.',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'commands-stand-alone',
      severity: 'error',
      comment:
        'A command parses its arguments and calls its process (src/app/); what two commands share lives there, not in one of them.',
      from: { path: '^src/cli/commands/' },
      to: { path: '^src/cli/commands/' },
    },
    {
      name: 'app-only-from-entry-points',
      severity: 'error',
      comment: 'src/app/ opens what a process needs; only entry points take it, everything else is handed its parts.',
      from: { pathNot: '^src/(app|cli)/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'foundations-stay-inside',
      severity: 'error',
      comment:
        'Content, rendering, the outbound client and the checks know nothing of builds, state, servers or delivery.',
      from: { path: `^src/${FOUNDATIONS}/` },
      to: { path: '^src/', pathNot: `^src/${FOUNDATIONS}/` },
    },
    {
      name: 'model-below-services',
      severity: 'error',
      comment:
        'What an article is, the compiler, the export, the served snapshot, keys and the state store do not depend on what serves or delivers them.',
      from: { path: `^src/${MODEL}/` },
      to: { path: `^src/${SERVICES}/` },
    },
    {
      name: 'export-format-stands-alone',
      severity: 'error',
      comment:
        'src/export/ is the format of dist/ (its layout, manifest, lists, encodings): it knows nothing of how it is written, compiled or served.',
      from: { path: '^src/export/', pathNot: '^src/export/writer/' },
      to: { path: '^src/(compile|snapshot|export/writer)/' },
    },
    {
      name: 'snapshot-reads-only',
      severity: 'error',
      comment:
        'src/snapshot/ is what is served, read from an export: it may read the format, never the writer or the compiler.',
      from: { path: '^src/snapshot/' },
      to: { path: '^src/(compile|export/writer)/' },
    },
    {
      name: 'writer-only-from-compiler',
      severity: 'error',
      comment: "Only a build writes an export: src/export/writer/ is the compiler's.",
      from: { path: '^src/', pathNot: '^src/(compile|export/writer)/' },
      to: { path: '^src/export/writer/' },
    },
    {
      name: 'compiler-only-from-entry-points-and-publish',
      severity: 'error',
      comment:
        'Readers (the API, the web app, MCP, the edge, deploy, delivery) take the format and the snapshot, never the compiler: a build runs from a command, the composition root, or publish.',
      from: { path: '^src/', pathNot: '^src/(compile|cli|app|publish)/' },
      to: { path: '^src/compile/' },
    },
    {
      name: 'content-api-reads-dist-only',
      severity: 'error',
      comment:
        'The Content API serves dist/ with the keys: no state store, delivery, web app or MCP (it must run where those do not).',
      from: { path: '^src/api/' },
      to: { path: '^src/(store|publish|delivery|admin|mcp|integration)/' },
    },
    {
      name: 'receiver-kit-self-contained',
      severity: 'error',
      comment: "src/receiver/ is the site owner's kit, copied as it is: it imports nothing else of Quire.",
      from: { path: '^src/receiver/' },
      to: { path: '^src/', pathNot: '^src/receiver/' },
    },
    {
      name: 'receiver-only-from-outside',
      severity: 'error',
      comment: "src/receiver/ (`quire/receiver`) is for site owners' servers; nothing in Quire imports it.",
      from: { path: '^src/', pathNot: '^src/receiver/' },
      to: { path: '^src/receiver/' },
    },
    {
      name: 'sql-only-in-store',
      severity: 'error',
      comment:
        "A SQL driver is the state store's business: everything else goes through its interface (test/structure/persistence-boundary.test.ts also checks calls, by type).",
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '^(node_modules/(better-sqlite3|pg)/|(node:)?sqlite$)' },
    },
    {
      name: 'store-through-its-interface',
      severity: 'error',
      comment:
        "Outside src/store/, only its public modules: state-store.ts (the state) and render-cache-file.ts (the build's cache); the SQLite store and its database handle stay inside.",
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '^src/store/', pathNot: '^src/store/(state-store|render-cache-file)[.]ts$' },
    },
    {
      name: 'git-only-through-its-runner',
      severity: 'error',
      comment:
        'Every git call goes to a repository Quire located, with settings under which nothing from a repository can run: src/git/git-runner.ts is the only module that starts a process.',
      from: { path: '^src/', pathNot: '^src/git/git-runner[.]ts$' },
      to: { path: '^(node:)?child_process$' },
    },
    {
      name: 'edge-is-an-entry-point',
      severity: 'error',
      comment:
        'src/edge/ is the Worker entry point (its composition root): nothing else imports it. That it reaches no Node API is checked on its bundle (test/edge/portable.test.ts): type-only imports may name Node types.',
      from: { path: '^src/', pathNot: '^src/edge/' },
      to: { path: '^src/edge/' },
    },
    {
      name: 'client-imports-contract-types-only',
      severity: 'error',
      comment:
        'src/client/ (`quire/client`) runs in browsers and Workers: of Quire it imports only the contract, and only its types.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(client|contract)/' },
    },
    {
      name: 'client-contract-as-types',
      severity: 'error',
      comment: 'The contract module loads zod and Node-only code; the client may only take its types.',
      from: { path: '^src/client/' },
      to: { path: '^src/contract/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-only-from-outside',
      severity: 'error',
      comment:
        "src/client/ is for site owners' code (and the Astro loader built on it); the server does not call itself through it.",
      from: { path: '^src/', pathNot: '^src/(client|astro)/' },
      to: { path: '^src/client/' },
    },
    {
      name: 'astro-loader-is-a-kit',
      severity: 'error',
      comment:
        "src/astro/ (`quire/astro`) runs in a site's Astro build: of Quire it takes the client and the contract's schema, nothing that serves or keeps state.",
      from: { path: '^src/astro/' },
      to: { path: '^src/', pathNot: '^src/(astro|client|contract|content/(dates|model|issues)[.]ts|problems|text)' },
    },
    {
      name: 'astro-only-from-outside',
      severity: 'error',
      comment: "src/astro/ is for site owners' Astro builds; nothing in Quire imports it.",
      from: { path: '^src/', pathNot: '^src/astro/' },
      to: { path: '^src/astro/' },
    },
  ],
  options: {
    // src/, the SQL drivers (sql-only-in-store) and child_process (git-only-through-its-runner).
    includeOnly: ['^src/', '^node_modules/(better-sqlite3|pg)/', '^(node:)?(sqlite|child_process)$'],
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
    // No cache: with one, an edited file's new imports were missed locally (a CI clone has none anyway).
  },
};

// Not a setting of dependency-cruiser (its schema refuses unknown keys, and this one is not
// enumerable): the layers, for test/structure/layers.test.ts.
Object.defineProperty(module.exports, 'layers', { value: LAYERS });
