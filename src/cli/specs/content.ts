// The specs of the commands about the content repository and its build: making one (init),
// building and checking it, what goes live next, checking the receiving site, preview links.
import { DEFAULT_PREVIEW_TTL } from '../../keys/preview-token.ts';
import type { CommandSpec } from '../args.ts';
import { site } from './options.ts';

export const init: CommandSpec = {
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
};

export const build: CommandSpec = {
  name: 'build',
  summary: 'compile content/ into dist/ (npm run build)',
  usage: ['build'],
  options: {},
  positionals: { max: 0 },
};

export const check: CommandSpec = {
  name: 'check',
  summary: 'run every check a build makes, writing nothing; report the problems for a terminal or for CI',
  usage: ['check [--format text|github|gitlab|sarif|json] [--output <file>]'],
  options: {
    format: {
      type: 'string',
      value: 'format',
      help: 'text; github (workflow commands: problems on the pull request), gitlab (Code Quality report), sarif (SARIF 2.1.0) or json',
      default: 'text',
    },
    output: {
      type: 'string',
      value: 'file',
      help: 'write the report to <file> instead; the terminal then gets the text report',
    },
  },
  positionals: { max: 0 },
  notes: [
    'Writes neither dist/ nor the state dir. Exit status 1 when there is an error; warnings alone: 0.',
    'The CI formats name files relative to the root of the repository the content is in (outside one,',
    'to the current folder), as GitHub and GitLab expect; text names them as `quire build` does.',
  ],
};

export const status: CommandSpec = {
  name: 'status',
  summary: 'list what goes live or expires next (scheduled publishing), from the current build',
  usage: ['status [--site <id>] [--json]'],
  options: { site, json: { type: 'boolean', help: 'print [{"site", "slug", "change", "at", "timezone", "local"}]' } },
  positionals: { max: 0 },
  notes: [
    'An article with status: published and a publishedAt still ahead goes live at that instant;',
    "one with expiresAt is withdrawn at it. Times are UTC and the site's timezone (site.yaml).",
  ],
};

export const verify: CommandSpec = {
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
};

export const preview: CommandSpec = {
  name: 'preview',
  summary:
    "print a signed link that opens a draft (or any article) on the site's preview route; --changed: a branch's links",
  usage: [
    'preview <site> <slug> [--ref <branch>] [--ttl <duration>] [--json]',
    'preview --changed --ref <branch> [--base <branch>] [--format markdown|json] [--ttl <duration>]',
  ],
  options: {
    ttl: {
      type: 'string',
      value: 'duration',
      help: 'how long the link works: 90m, 24h, 7d; at most 30d',
      default: DEFAULT_PREVIEW_TTL,
    },
    ref: {
      type: 'string',
      value: 'branch',
      help: 'a branch the server beside this command previews (start --follow --previews): the link opens its version',
    },
    json: { type: 'boolean', help: 'print {"url", "token", "expiresAt"} (and "ref" with --ref)' },
    changed: {
      type: 'boolean',
      help: 'list the articles the --ref branch adds or changes since it left its base, each with a link',
    },
    base: {
      type: 'string',
      value: 'branch',
      help: 'with --changed: the branch compared with (default: the followed branch)',
    },
    format: {
      type: 'string',
      value: 'markdown|json',
      help: 'with --changed: a pull-request comment (markdown) or JSON',
      default: 'markdown',
    },
  },
  positionals: { max: 2 },
  notes: [
    'The link is the site.yaml previewUrl with {slug} and {token} filled in. The token is signed',
    "with the site's preview key, for this article only; the site checks it with verifyPreviewToken",
    'from the receiver kit. Rotating the preview key (`quire keys rotate <site> --preview`) ends every link.',
    'With --ref, the token names the branch too (verifyPreviewToken returns it as `ref`): the site fetches',
    'the article with `Quire-Ref: <branch>`. Run it beside the server that previews the branch (its state dir).',
    '--changed lists, per site, the articles whose file the branch changed since it left the base (as',
    '`git diff base...branch`), new or changed, as its last good preview has them: the text of a',
    'pull-request comment (docs/own-repository.md shows how a workflow posts it).',
  ],
};
