// What `quire init` writes: a content repository with one site, one author and a first article,
// the .gitignore lines that keep state and build output out of git, and a CI workflow that checks
// pull requests (with a publish job for main, commented).
// Kept as data in this module rather than as template files: the CLI runs from a bundle, where
// no file of the package is beside the code.

/** Paths relative to the new repository's root. */
export interface TemplateFile {
  path: string;
  text: string;
}

/**
 * What git must never see: the state dir (the server secret, key generations, webhook secrets),
 * the build output and the build's work folder. Each line with the reason it is there.
 */
export const GITIGNORE_LINES: readonly { line: string; why: string }[] = [
  { line: '/.quire/', why: 'state: the server secret, API key generations, webhook secrets, caches' },
  { line: '/dist/', why: 'build output, made by `quire build`' },
  { line: '/.dist.*', why: "the build's work folder (.dist.work/: the tree being written, the spare)" },
  { line: 'node_modules/', why: 'installed packages' },
  { line: '.env', why: 'local settings, such as QUIRE_SECRET' },
];

export function gitignoreText(): string {
  return [
    '# Quire: never commit state (it holds the server secret) or build output.',
    '# With QUIRE_STATE_DIR or QUIRE_DIST_DIR set, ignore those folders too.',
    ...GITIGNORE_LINES.flatMap(({ line, why }) => [`# ${why}`, line]),
    '',
  ].join('\n');
}

const WORKFLOW = `# Checks the content of every pull request: \`quire check --format github\` runs every check a
# build makes, writes nothing, and shows each problem on the pull request's lines (an error fails
# the check, a warning does not). Quire is installed from this repository's package.json and lock
# file (\`npm ci\`), and \`npx --no quire\` runs that installed copy (\`--no\`: never a package of
# that name from the registry, which is not Quire).
name: quire

on:
  pull_request:
  push:
    branches: [main] # the branch that is published; change it if yours is another

jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # the full history: articles without dates are dated by git
      - uses: actions/setup-node@v4
        with:
          node-version: 24
          cache: npm
      - run: npm ci
      - run: npx --no quire check --format github

  # To send webhooks to your sites from CI, uncomment this job: it runs for a push to main only
  # (a merged pull request), never for a pull request, and only once the check has passed.
  # Publishing needs what \`quire start\` and \`quire webhook set\` keep in the state dir (.quire/,
  # never committed): the receivers and their secrets, and what was already sent. So give it
  #   - QUIRE_SECRET: the same server secret as your server (a repository secret), and
  #   - the state dir, kept between runs (e.g. actions/cache or a mounted volume, with
  #     QUIRE_STATE_DIR pointing at it).
  # Without that state each run would see every article as new. (A server that follows this
  # repository, \`quire start --follow\`, publishes by itself: then leave this job out.)
  #
  #   publish:
  #     needs: check
  #     if: github.event_name == 'push' && github.ref == 'refs/heads/main'
  #     runs-on: ubuntu-latest
  #     env:
  #       QUIRE_SECRET: \${{ secrets.QUIRE_SECRET }}
  #       QUIRE_STATE_DIR: /path/to/kept/state
  #     steps:
  #       - uses: actions/checkout@v4
  #         with:
  #           fetch-depth: 0
  #       - uses: actions/setup-node@v4
  #         with:
  #           node-version: 24
  #           cache: npm
  #       - run: npm ci
  #       - run: npx --no quire publish
`;

/** The files of a new content repository whose one site is `siteId`; `today` dates the first article. */
export function templateFiles(siteId: string, today: Date): TemplateFile[] {
  return [...siteFiles(siteId, today), { path: '.github/workflows/quire.yml', text: WORKFLOW }];
}

/** One site's files: its site.yaml, an author and a first article (`quire init --site` adds these alone). */
export function siteFiles(siteId: string, today: Date): TemplateFile[] {
  const site = `content/${siteId}`;
  return [
    {
      path: `${site}/site.yaml`,
      text: [
        '# The site that renders these articles: its name, language and base URL.',
        '# Its webhook receiver and API key are set up in Quire (`quire webhook set`), not here.',
        `name: My site`,
        'lang: en',
        'url: https://www.example.com',
        '# Where an article lives on the site (default /blog/{slug}).',
        'articlePath: /blog/{slug}',
        '',
      ].join('\n'),
    },
    {
      path: `${site}/authors/editor.yaml`,
      text: ['name: The Editor', 'bio: Writes the first articles of this site.', ''].join('\n'),
    },
    {
      path: `${site}/articles/hello-world.md`,
      text: [
        '---',
        'title: Hello, world',
        'status: published',
        'author: editor',
        'metaDescription: The first article of this site, written by quire init.',
        `publishedAt: ${today.toISOString().slice(0, 10)}`,
        '---',
        '',
        'This is the first article. Edit it, or add more Markdown files next to it:',
        '`quire build` checks them all and names the file and line of any problem.',
        '',
        '## What to try next',
        '',
        '- Set `status: draft` on an article to keep it out of the API.',
        '- Put images in `images/` and use them as `![alt](../images/photo.png)`.',
        '- Run `npx --no quire start` and read this article from the Content API.',
        '',
      ].join('\n'),
    },
  ];
}
