// Every `quire` command as data: its options (types, bounds), its usage and help text. main.ts
// parses argv against these and dispatches; `quire --help` and `quire <command> --help` print them.
// An option's default is here, once: the parser hands it to the command and --help prints it.
import { DEFAULT_PORT } from '../config/config.ts';
import { DEFAULT_PREVIEW_TTL } from '../keys/preview-token.ts';
import type { CommandSpec } from './args.ts';

const site = { type: 'string', value: 'id', help: 'only this site (an id from content/<site>/)' } as const;
const json = { type: 'boolean', help: 'print JSON instead of a table' } as const;
// Where a server listens is a setting (the same for start, dev and a process manager's unit).
const listenSettings = {
  port: { setting: 'PORT', example: '8080', note: 'PORT=0: any free port' },
  host: { setting: 'HOST', example: '0.0.0.0', note: 'beyond loopback, set QUIRE_PUBLIC_URL too' },
};

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'init',
    summary: 'make a new content repository: one site, an author, a first article, .gitignore, a CI workflow',
    usage: ['init [<dir>] [--site <id>]'],
    options: {
      site: {
        type: 'string',
        value: 'id',
        help: 'the id of the first site, its folder under content/ (default my-site); where content/ is already: the site to add',
      },
    },
    positionals: { max: 1 },
    notes: [
      'Writes into <dir> (default: the current directory): content/<id>/, .github/workflows/quire.yml',
      'and a .gitignore for .quire/, dist/ and .dist.work/ (an existing .gitignore gets the lines it lacks).',
      'Never overwrites: if content/ or the workflow file is there already, it writes nothing.',
      'In a repository that has content/ already, --site <id> adds that site (content/<id>/: its site.yaml,',
      'an author, a first article) and changes nothing else; a site that exists is refused (SITE_EXISTS).',
      'When package.json installs Quire from a tarball outside the repository (file:../…), a fresh clone',
      'could not install it: init copies it into vendor/ and points package.json and package-lock.json at it.',
    ],
  },
  {
    name: 'start',
    summary: 'build content/ and serve the Content API and the Publishing app (npm start)',
    usage: ['start [--follow <git-url-or-path> [--branch <b>] [--interval <seconds>]]'],
    options: {
      follow: {
        type: 'string',
        value: 'git-url-or-path',
        help: 'keep a checkout of this repository (in the state dir) and build and publish its branch as it changes',
      },
      branch: {
        type: 'string',
        value: 'b',
        help: "the branch to follow (default: the repository's default branch, the one its HEAD names)",
      },
      interval: {
        type: 'integer',
        value: 'seconds',
        help: 'fetch every this many seconds; 0: only on push notifications',
        min: 0,
        max: 86_400,
        default: 60,
      },
    },
    settingOptions: listenSettings,
    positionals: { max: 0 },
    notes: [
      `Serves on PORT (default ${DEFAULT_PORT}) until stopped; also delivers queued webhooks every 5 s.`,
      "With --follow, content comes from the checkout's content/ folder; each new commit is built and",
      'published as `quire publish` does (same lock, outbox and retries). With QUIRE_GIT_HOOK_SECRET set,',
      'POST /hooks/git (GitHub X-Hub-Signature-256 or GitLab X-Gitlab-Token) fetches at once.',
    ],
  },
  {
    name: 'dev',
    summary: 'like start, and rebuild on every change to content/ (npm run dev)',
    usage: ['dev'],
    options: {},
    settingOptions: listenSettings,
    positionals: { max: 0 },
  },
  {
    name: 'build',
    summary: 'compile content/ into dist/ (npm run build)',
    usage: ['build'],
    options: {},
    positionals: { max: 0 },
  },
  {
    name: 'keys',
    summary:
      "print each site's API key and preview key, give one site a new key, or restore keys.json from the state store",
    usage: ['keys [--site <id>] [--json]', 'keys rotate <site> [--preview]', 'keys restore'],
    options: {
      site,
      json,
      preview: { type: 'boolean', help: 'with rotate: give the site a new preview key (its API key stays)' },
    },
    positionals: { max: 2 },
    notes: [
      'The table is site, API key (pk_…), preview key (pv_…): the preview key also sees drafts and',
      'scheduled articles, so keep it on the server side of a site, never in a page.',
      "`keys rotate` stops the old key at once; other sites, and the site's other key, keep theirs.",
      'Rotations are kept in the state store and in keys.json; a keys.json that is missing or behind the',
      "store is refused. `keys restore` writes the store's generations into keys.json.",
    ],
  },
  {
    name: 'webhook',
    summary: "register, inspect, remove or try a site's webhook receiver",
    usage: [
      'webhook set <site> --url <https-url> (--secret <s> | --generate-secret) [--extra-events | --no-extra-events]',
      'webhook show [<site>] [--json]',
      'webhook remove <site>',
      'webhook test <site>',
    ],
    options: {
      url: { type: 'string', value: 'https-url', help: 'where the receiver listens (https, public host)' },
      secret: {
        type: 'string',
        value: 's',
        help: 'the shared secret (at least 24 characters); or set QUIRE_WEBHOOK_SECRET',
      },
      'generate-secret': { type: 'boolean', help: 'make a secret and print it once' },
      'extra-events': { type: 'boolean', help: 'also send unpublished/deleted events' },
      'no-extra-events': { type: 'boolean', help: 'stop sending unpublished/deleted events' },
      json,
    },
    positionals: { max: 2 },
    notes: [
      '`set` without a secret keeps the saved one (change only the URL).',
      '`test` builds content/ first, then sends the newest published article as an `updated` event.',
    ],
  },
  {
    name: 'publish',
    summary: 'build, then send published/updated webhooks for what changed (npm run publish)',
    usage: ['publish [--site <id>] [--dry-run] [--baseline] [--no-deliver]'],
    options: {
      site,
      'no-deliver': {
        type: 'boolean',
        help: 'queue the deliveries and leave them to the workers (`quire worker`) or a server; send nothing here',
      },
      'dry-run': { type: 'boolean', help: 'print the events without writing dist/, sending or recording anything' },
      baseline: { type: 'boolean', help: 'record the current state as sent, without sending' },
    },
    positionals: { max: 0 },
    notes: [
      'Exit status: 0 all delivered, 1 something pending or failed (or the build failed), 3 another publish held the lock.',
    ],
  },
  {
    name: 'worker',
    summary: 'only deliver queued webhooks, until stopped; run any number, on any number of machines (npm run worker)',
    usage: ['worker [--concurrency <n>] [--per-host <n>] [--health-interval <seconds>]'],
    options: {
      concurrency: {
        type: 'integer',
        value: 'n',
        help: 'deliveries sent at once by this worker',
        min: 1,
        max: 1000,
        default: 16,
      },
      'per-host': {
        type: 'integer',
        value: 'n',
        help: 'requests in flight to one receiving host at most, across every worker of the state (default: no cap)',
        min: 1,
        max: 10_000,
      },
      'health-interval': {
        type: 'integer',
        value: 'seconds',
        help: 'how often it logs what it sent and what is pending',
        min: 1,
        max: 86_400,
        default: 60,
      },
    },
    positionals: { max: 0 },
    notes: [
      'With QUIRE_DATABASE_URL, workers on many machines share one PostgreSQL state: each delivery is sent by',
      "one of them at a time, one article's deliveries never overlap, and a worker that dies loses nothing",
      '(its leases run out and another takes its deliveries). SIGTERM: no new claims, what is in flight is',
      'finished, exit 0. `quire publish --no-deliver` queues for them; `quire deliveries --stats` shows the fleet.',
      'Logs one line per delivery attempt on stderr, as the server does (QUIRE_LOG_FORMAT=json: JSON lines).',
    ],
  },
  {
    name: 'status',
    summary: 'list what goes live or expires next (scheduled publishing), from the current build',
    usage: ['status [--site <id>] [--json]'],
    options: { site, json: { type: 'boolean', help: 'print [{"site", "slug", "change", "at", "timezone", "local"}]' } },
    positionals: { max: 0 },
    notes: [
      'An article with status: published and a publishedAt still ahead goes live at that instant;',
      "one with expiresAt is withdrawn at it. Times are UTC and the site's timezone (site.yaml).",
    ],
  },
  {
    name: 'deliveries',
    summary: 'every delivery attempt: time, event, slug, status, duration, error, reply URL',
    usage: [
      'deliveries [--site <id>] [--json] [--limit <n>]',
      'deliveries --stats [--json]',
      'deliveries retry [<delivery-id> | --site <id>]',
    ],
    options: {
      site,
      json,
      stats: {
        type: 'boolean',
        help: "the whole outbox instead of the log: pending, in flight, senders, the last hour's attempts",
      },
      limit: {
        type: 'integer',
        value: 'n',
        help: 'at most this many attempts, newest first',
        min: 1,
        max: 100_000,
        default: 200,
      },
    },
    positionals: { max: 2 },
    notes: [
      '`retry` sends pending deliveries (waiting for their next attempt after a failure) now, in this process,',
      "and prints each result; without an id or --site, every site's. Delivered and failed ones are not",
      'sent again (that is `quire redeliver <id>`). Exit status: 0 all delivered, 1 something still pending or failed.',
    ],
  },
  {
    name: 'redeliver',
    summary: "send a delivery's payload again",
    usage: ['redeliver <delivery-id>'],
    options: {},
    positionals: { max: 1 },
    notes: ['Delivery ids are listed by `quire deliveries`.'],
  },
  {
    name: 'state',
    summary:
      'back up the state (webhooks, outbox, key generations, generated secret) while Quire runs; copy it into PostgreSQL',
    usage: ['state backup <dir> [--force]', 'state migrate-to-postgres'],
    options: { force: { type: 'boolean', help: 'replace an existing backup at <dir>' } },
    positionals: { max: 2 },
    notes: [
      '<dir> is made as a folder holding quire.db, keys.json and secret; docs/server.md (Backup and restore) says how to restore it.',
      'migrate-to-postgres copies quire.db (webhooks, deliveries with their attempts, publish records) into the empty PostgreSQL database of QUIRE_DATABASE_URL; stop every server and publish first.',
    ],
  },
  {
    name: 'verify',
    summary: 'check the receiving site: sitemap, canonical, unmodified HTML, byline',
    usage: ['verify <site> [--url <base>] [--slug <s>]… [--json]'],
    options: {
      url: {
        type: 'string',
        value: 'base',
        help: 'base URL of the site to check (default: url in site.yaml); used for every page and the sitemap',
      },
      slug: {
        type: 'string',
        value: 's',
        help: 'check this article (repeat for more; default: the newest 25)',
        multiple: true,
      },
      json: { type: 'boolean', help: 'print the report as JSON' },
    },
    positionals: { max: 1 },
  },
  {
    name: 'preview',
    summary: "print a signed link that opens a draft (or any article) on the site's preview route",
    usage: ['preview <site> <slug> [--ttl <duration>] [--json]'],
    options: {
      ttl: {
        type: 'string',
        value: 'duration',
        help: 'how long the link works: 90m, 24h, 7d; at most 30d',
        default: DEFAULT_PREVIEW_TTL,
      },
      json: { type: 'boolean', help: 'print {"url", "token", "expiresAt"}' },
    },
    positionals: { max: 2 },
    notes: [
      'The link is the site.yaml previewUrl with {slug} and {token} filled in. The token is signed',
      "with the site's preview key, for this article only; the site checks it with verifyPreviewToken",
      'from the receiver kit. Rotating the preview key (`quire keys rotate <site> --preview`) ends every link.',
    ],
  },
  {
    name: 'edge',
    summary:
      'run the edge Worker locally under workerd on the current build; --init: a wrangler.toml to deploy it (npm run edge)',
    usage: ['edge [--port <n>]', 'edge --init'],
    options: {
      port: {
        type: 'integer',
        value: 'n',
        help: 'listen on this port of 127.0.0.1; 0: any free port',
        min: 0,
        max: 65_535,
        default: 8788,
      },
      init: {
        type: 'boolean',
        help: "write wrangler.toml here, for `npx wrangler deploy` of the installed Quire's Worker; runs nothing",
      },
    },
    positionals: { max: 0 },
    notes: [
      'Serves the current build (dist/) from a local R2 bucket, filled by the same code as `quire deploy`,',
      'and deploys it there again when dist/ is rebuilt; keys are those of `quire keys` (QUIRE_SECRET or',
      "the state dir's secret). Needs Miniflare in the repository (npm install --save-dev miniflare@4; it",
      'brings workerd), which Quire does not install: EDGE_RUNTIME_MISSING says so.',
      '--init never overwrites a wrangler.toml; it prints the deploy steps.',
    ],
  },
  {
    name: 'deploy',
    summary: 'publish the current build to S3-compatible storage for the edge Worker (npm run deploy)',
    usage: ['deploy [--dry-run] [--keep-hours <n>] [--concurrency <n>]'],
    options: {
      'dry-run': { type: 'boolean', help: 'say what would be uploaded and removed, without writing anything' },
      'keep-hours': {
        type: 'integer',
        value: 'n',
        help: 'keep a build this long after it stopped being current, then prune it',
        min: 0,
        max: 24 * 365,
        default: 24,
      },
      concurrency: { type: 'integer', value: 'n', help: 'uploads at once', min: 1, max: 256, default: 16 },
    },
    positionals: { max: 0 },
    notes: [
      'Needs QUIRE_S3_BUCKET (and QUIRE_S3_ENDPOINT for R2 or another service than AWS S3); credentials',
      'as the AWS SDK reads them. Uploads only objects the bucket lacks, then switches current.json last:',
      'a deploy that fails leaves the previous build served, and running it again finishes the job.',
      'Drafts are never uploaded (they are not in dist/). The key generations go along, so a rotated key',
      'stops working at the edge after the next deploy (run one after `quire keys rotate`).',
    ],
  },
  {
    name: 'mcp',
    summary: 'serve the MCP tools over stdio (npm run mcp)',
    usage: ['mcp'],
    options: {},
    positionals: { max: 0 },
    notes: ['stdout is the MCP protocol; logs go to stderr.'],
  },
];

export const commandNamed = (name: string): CommandSpec | undefined => COMMANDS.find((c) => c.name === name);
