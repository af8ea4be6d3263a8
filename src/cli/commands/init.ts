// `quire init [dir]`: a new content repository from init-template.ts. Never overwrites: when
// content/ or a file it would write is there already, it writes nothing. An existing .gitignore
// is kept and gets only the lines it lacks, so state and build output stay out of git.
import fs from 'node:fs';
import path from 'node:path';
import { SITE_ID } from '../../content/model.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';
import { GITIGNORE_LINES, gitignoreText, templateFiles } from '../init-template.ts';

export interface InitOptions {
  dir: string;
  site: string;
  now: Date;
}

// A .gitignore larger than this is not one we should be appending to blind.
const MAX_GITIGNORE_BYTES = 1024 * 1024;

export function runInit({ out, err }: Pick<CliContext, 'out' | 'err'>, opts: InitOptions): number {
  if (!SITE_ID.test(opts.site)) {
    return refuseCommandLine(err, `quire init: --site "${opts.site}" is not a site id (lower-case letters, digits and dashes, e.g. my-site)`);
  }
  const root = path.resolve(opts.dir);
  const files = templateFiles(opts.site, opts.now);
  // content/ itself counts: a repository with content already is not a new one.
  const hasContent = fs.existsSync(path.join(root, 'content'));
  const taken = [...(hasContent ? ['content/'] : []), ...files.map((f) => f.path).filter((rel) => !rel.startsWith('content/') && fs.existsSync(path.join(root, rel)))];
  if (taken.length) {
    err(`quire init: ${root} already has ${taken.join(', ')}; nothing was written (init never overwrites).`);
    return 1;
  }
  const gitignore = path.join(root, '.gitignore');
  const existing = readGitignore(gitignore);
  if (existing instanceof Error) {
    err(`quire init: ${existing.message}; nothing was written.`);
    return 1;
  }

  fs.mkdirSync(root, { recursive: true });
  for (const file of files) {
    const target = path.join(root, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text, { flag: 'wx' }); // 'wx': a file made meanwhile is an error, not overwritten
    out(`  made   ${file.path}`);
  }
  if (existing === null) {
    fs.writeFileSync(gitignore, gitignoreText(), { flag: 'wx' });
    out('  made   .gitignore');
  } else {
    const present = new Set(existing.split(/\r?\n/).map((l) => l.trim()));
    const missing = GITIGNORE_LINES.filter(({ line }) => !present.has(line));
    if (missing.length) {
      const separator = existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
      const block = ['# Added by quire init: never commit state (it holds the server secret) or build output.', ...missing.map((m) => m.line)];
      fs.appendFileSync(gitignore, `${separator}${block.join('\n')}\n`);
      out(`  added  ${missing.map((m) => m.line).join(' ')} to .gitignore`);
    }
  }
  const cd = path.relative(process.cwd(), root);
  out('');
  out(`A content repository with the site "${opts.site}". Next:`);
  if (cd) out(`  cd ${cd}`);
  out('  npx --no quire build      check and compile content/ into dist/');
  out('  npx --no quire start      serve the Content API; it prints each site\'s key');
  out(`Edit content/${opts.site}/site.yaml first: its url is where your site shows the articles.`);
  return 0;
}

/** The .gitignore's text, null when there is none, an Error when it is not a file we can extend. */
function readGitignore(file: string): string | null | Error {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!st.isFile()) return new Error(`${file} is not a regular file`);
  if (st.size > MAX_GITIGNORE_BYTES) return new Error(`${file} is larger than ${MAX_GITIGNORE_BYTES} bytes`);
  return fs.readFileSync(file, 'utf8');
}
