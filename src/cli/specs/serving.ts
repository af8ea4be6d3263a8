// The specs of the commands that serve the content: the Node server (start, dev), the edge
// Worker run locally and the deploy it serves from, and the MCP server.
import { DEFAULT_PORT } from '../../config/config.ts';
import type { CommandSpec } from '../args.ts';

// Where a server listens is a setting (the same for start, dev and a process manager's unit).
const listenSettings = {
  port: { setting: 'PORT', example: '8080', note: 'PORT=0: any free port' },
  host: { setting: 'HOST', example: '0.0.0.0', note: 'beyond loopback, set QUIRE_PUBLIC_URL too' },
};

export const start: CommandSpec = {
  name: 'start',
  summary: 'build content/ and serve the Content API and the Publishing app (npm start)',
  usage: ['start [--follow <git-url-or-path> [--branch <b>] [--interval <seconds>] [--previews <pattern>]…]'],
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
    previews: {
      type: 'string',
      value: 'pattern',
      help: "also build each branch whose name matches (`*` is any text: '*', 'content/*') into a preview of its own, read with the preview key and ?ref=<branch> (repeat for more patterns)",
      multiple: true,
    },
  },
  settingOptions: listenSettings,
  positionals: { max: 0 },
  notes: [
    `Serves on PORT (default ${DEFAULT_PORT}) until stopped; also delivers queued webhooks every 5 s.`,
    "With --follow, content comes from the checkout's content/ folder; each new commit is built and",
    'published as `quire publish` does (same lock, outbox and retries). With QUIRE_GIT_HOOK_SECRET set,',
    'POST /hooks/git (GitHub X-Hub-Signature-256 or GitLab X-Gitlab-Token) fetches at once.',
    'With --previews, matching branches are built apart in the state dir (never dist/), drafts included:',
    'never public, no webhooks, no change feed; rebuilt when pushed, removed when deleted. At most',
    'QUIRE_PREVIEW_BRANCHES_MAX of them (the least recently pushed dropped first), each fetch and tree',
    'at most QUIRE_PREVIEW_BRANCH_MAX_BYTES.',
  ],
};

export const dev: CommandSpec = {
  name: 'dev',
  summary: 'like start, and rebuild on every change to content/ (npm run dev)',
  usage: ['dev'],
  options: {},
  settingOptions: listenSettings,
  positionals: { max: 0 },
};

export const edge: CommandSpec = {
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
};

export const deploy: CommandSpec = {
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
};

export const mcp: CommandSpec = {
  name: 'mcp',
  summary: 'serve the MCP tools over stdio (npm run mcp)',
  usage: ['mcp'],
  options: {},
  positionals: { max: 0 },
  notes: ['stdout is the MCP protocol; logs go to stderr.'],
};
