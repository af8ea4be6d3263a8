// `quire init [dir]`: a new content repository from init-template.ts. Never overwrites: when
// content/ or a file it would write is there already, it writes nothing. An existing .gitignore
// is kept and gets only the lines it lacks, so state and build output stay out of git. Quire
// installed from a tarball outside the repository is brought into vendor/ (vendor-tarball.ts).
// `quire init --site <id>` in a repository that has content/ already adds that one site.
import fs from 'node:fs';
import path from 'node:path';
import { SITE_ID } from '../../content/model.ts';
import { isMissingFile, withCode } from '../../problems/problem.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';
import { GITIGNORE_LINES, gitignoreText, siteFiles, templateFiles, type TemplateFile } from '../init-template.ts';
import { vendorQuireTarball } from '../vendor-tarball.ts';

export interface InitOptions {
  dir: string;
  /** `--site`; null when not given (a new repository's first site is then my-site). */
  site: string | null;
  now: Date;
}

const FIRST_SITE = 'my-site';

// A .gitignore larger than this is not one we should be appending to blind.
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export function runInit({ out, err }: Pick<CliContext, 'out' | 'err'>, opts: InitOptions): number {
  const siteId = opts.site ?? FIRST_SITE;
  if (!SITE_ID.test(siteId)) {
    return refuseCommandLine(
      err,
      `quire init: --site "${siteId}" is not a site id (lower-case letters, digits and dashes, e.g. my-site)`,
    );
  }
  const root = path.resolve(opts.dir);
  // content/ itself counts: a repository with content already is not a new one.
  const hasContent = fs.existsSync(path.join(root, 'content'));
  if (hasContent && opts.site !== null) return addSite({ out, err }, root, siteId, opts.now);
  const files = templateFiles(siteId, opts.now);
  const taken = [
    ...(hasContent ? ['content/'] : []),
    ...files.map((f) => f.path).filter((rel) => !rel.startsWith('content/') && fs.existsSync(path.join(root, rel))),
  ];
  if (taken.length) {
    err(`quire init: ${root} already has ${taken.join(', ')}; nothing was written (init never overwrites).`);
    if (hasContent) err('To add a site to it: quire init --site <id>');
    return 1;
  }
  const gitignore = path.join(root, '.gitignore');
  const existing = readGitignore(gitignore);
  if (existing instanceof Error) {
    err(`quire init: ${existing.message}; nothing was written.`);
    return 1;
  }

  fs.mkdirSync(root, { recursive: true });
  writeFiles(out, root, files);
  if (existing === null) {
    fs.writeFileSync(gitignore, gitignoreText(), { flag: 'wx' });
    out('  made   .gitignore');
  } else {
    const present = new Set(existing.split(/\r?\n/).map((l) => l.trim()));
    const missing = GITIGNORE_LINES.filter(({ line }) => !present.has(line));
    if (missing.length) {
      const separator = existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
      const block = [
        '# Added by quire init: never commit state (it holds the server secret) or build output.',
        ...missing.map((m) => m.line),
      ];
      fs.appendFileSync(gitignore, `${separator}${block.join('\n')}\n`);
      out(`  added  ${missing.map((m) => m.line).join(' ')} to .gitignore`);
    }
  }
  // The workflow's `npm ci` runs in a fresh clone: Quire must install from what the repository holds.
  const vendored = vendorQuireTarball(root);
  if (vendored.kind === 'vendored') {
    out(
      `  copied ${vendored.from} to ${vendored.to}: package.json and package-lock.json now install Quire from ${vendored.spec}`,
    );
    out(`         (commit ${vendored.to}: a fresh clone's npm ci, the workflow's, installs Quire from it)`);
  } else if (vendored.kind === 'not-clonable') {
    err(
      withCode(
        `quire init: warning: ${vendored.reason}; a fresh clone cannot install Quire, so the workflow's npm ci would fail`,
        'INSTALL_NOT_CLONABLE',
      ),
    );
    err('Copy the tarball into vendor/ and `npm install ./vendor/<its name>`, or install Quire from a git URL.');
  }
  out('');
  out(`A content repository with the site "${siteId}". Next:`);
  nextSteps(out, root, siteId);
  return 0;
}

/** `init --site <id>` where content/ is: the site's three files and nothing else. */
function addSite({ out, err }: Pick<CliContext, 'out' | 'err'>, root: string, siteId: string, now: Date): number {
  const folder = path.join(root, 'content', siteId);
  if (fs.existsSync(folder)) {
    err(
      withCode(
        `quire init: content/${siteId}/ is there already: the site "${siteId}" exists; nothing was written.`,
        'SITE_EXISTS',
      ),
    );
    return 1;
  }
  writeFiles(out, root, siteFiles(siteId, now));
  out('');
  out(`Added the site "${siteId}" to content/; nothing else was changed. Next:`);
  nextSteps(out, root, siteId);
  out(`  npx --no quire keys --site ${siteId}      the new site's own API key`);
  return 0;
}

function writeFiles(out: (line: string) => void, root: string, files: readonly TemplateFile[]): void {
  for (const file of files) {
    const target = path.join(root, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text, { flag: 'wx' }); // 'wx': a file made meanwhile is an error, not overwritten
    out(`  made   ${file.path}`);
  }
}

function nextSteps(out: (line: string) => void, root: string, siteId: string): void {
  const cd = path.relative(process.cwd(), root);
  if (cd) out(`  cd ${cd}`);
  out('  npx --no quire check      every check, nothing written (CI runs it on pull requests)');
  out('  npx --no quire build      check and compile content/ into dist/');
  out("  npx --no quire start      serve the Content API; it prints each site's key");
  out(`Edit content/${siteId}/site.yaml first: its url is where your site shows the articles.`);
}

/** The .gitignore's text, null when there is none, an Error when it is not a file we can extend. */
function readGitignore(file: string): string | null | Error {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (isMissingFile(e)) return null;
    throw e;
  }
  if (!st.isFile()) return new Error(`${file} is not a regular file`);
  if (st.size > MAX_GITIGNORE_BYTES) return new Error(`${file} is larger than ${MAX_GITIGNORE_BYTES} bytes`);
  return fs.readFileSync(file, 'utf8');
}
