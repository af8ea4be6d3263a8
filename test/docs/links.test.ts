// The docs a newcomer reads hold together: every relative link and anchor in README.md and
// docs/*.md leads to a file that exists and a heading it has (anchors made as GitHub makes them),
// and the quick start's commands are the ones CI runs (.ci/run), so what README tells a
// newcomer to run is what is proven on every change.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md and every Markdown page of docs/, relative to the repository. */
function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** The lines of a Markdown text outside fenced code blocks (others blanked, so line numbers hold). */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1]!;
      return '';
    }
    if (fence !== null) {
      if (line.trimStart().startsWith(fence) && /^ {0,3}(`{3,}|~{3,})\s*$/.test(line)) fence = null;
      return '';
    }
    return line;
  });
}

/** A line without its inline code spans (their text is no link). */
const withoutCode = (line: string) => line.replace(/(`+)[\s\S]*?\1/g, '');

/** GitHub's anchor for a heading's text: lower-case, punctuation but `-` and `_` removed, spaces to `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/(`+)([\s\S]*?)\1/g, '$2') // code spans: their text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/\*/g, ''); // emphasis markers
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text's headings make; a repeated one gets `-1`, `-2`, … as on GitHub. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  line: number;
  target: string;
}

/** The link and image targets of a Markdown text, outside code: `[x](target)` and `[x]: target`. */
function links(text: string): Link[] {
  const out: Link[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = withoutCode(raw);
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ line: i + 1, target: m[1]! });
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (def) out.push({ line: i + 1, target: def[1]! });
  });
  return out;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** What is wrong with each relative link of `file` (relative to the repository): none when all resolve. */
function brokenLinks(file: string, read: (file: string) => string | null = readRepoFile): string[] {
  const text = read(file);
  if (text === null) return [`${file}: not found`];
  const problems: string[] = [];
  for (const { line, target } of links(text)) {
    if (isExternal(target)) continue;
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const targetFile =
      pathPart === ''
        ? file
        : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(pathPart)));
    const where = `${file}:${line}: ${target}`;
    if (targetFile.startsWith('../')) {
      problems.push(`${where}: leads out of the repository`);
      continue;
    }
    const isDir =
      pathPart.endsWith('/') ||
      (fs.existsSync(path.join(ROOT, targetFile)) && fs.statSync(path.join(ROOT, targetFile)).isDirectory());
    const targetText = isDir ? null : read(targetFile);
    if (!isDir && targetText === null) {
      problems.push(`${where}: no file ${targetFile}`);
      continue;
    }
    if (isDir && !fs.existsSync(path.join(ROOT, targetFile))) {
      problems.push(`${where}: no folder ${targetFile}`);
      continue;
    }
    if (anchor !== undefined && targetFile.endsWith('.md') && !anchors(targetText!).has(decodeURIComponent(anchor))) {
      problems.push(`${where}: ${targetFile} has no heading with the anchor #${anchor}`);
    }
  }
  return problems;
}

function readRepoFile(file: string): string | null {
  const full = path.join(ROOT, file);
  return fs.existsSync(full) && fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : null;
}

/** The top-level npm commands (`npm install`, not `npm run …`) of a shell text, in order, comments dropped. */
function npmCommands(shell: string, options: { indented: boolean }): string[] {
  return shell
    .split('\n')
    .filter((line) => options.indented || !/^\s/.test(line))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => /^npm (?!run\b)\S+/.test(line));
}

/** The fenced `sh` blocks of README's "Quick start" section, each as its text. */
function quickStartBlocks(readme: string): string[] {
  const start = readme.search(/^## Quick start$/m);
  if (start < 0) throw new Error('README.md has no "## Quick start" section');
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('links in README.md and docs/', () => {
  it('work out anchors as GitHub does', () => {
    expect(slug('Change feed: `GET /v1/changes`')).toBe('change-feed-get-v1changes');
    expect(slug('The MCP tool server and `verify_integration`')).toBe('the-mcp-tool-server-and-verify_integration');
    expect(slug('Next.js (App Router): `examples/nextjs/`')).toBe('nextjs-app-router-examplesnextjs');
    expect(slug('Start-up and install on Node 24 (2026-11-25, night)')).toBe(
      'start-up-and-install-on-node-24-2026-11-25-night',
    );
    expect(slug('Crème brûlée')).toBe('crème-brûlée');
    expect([...anchors('# A\n\n## Notes\n\n```\n## Not a heading\n```\n\n### Notes\n\n## Notes\n')]).toEqual([
      'a',
      'notes',
      'notes-1',
      'notes-2',
    ]);
  });

  it('find links outside code only', () => {
    const text = 'See [one](a.md#x) and `[not](b.md)`.\n\n```md\n[not](c.md)\n```\n\n![img](d.png)\n[ref]: e.md\n';
    expect(links(text).map((l) => l.target)).toEqual(['a.md#x', 'd.png', 'e.md']);
  });

  it('report a missing file, a missing anchor and a missing heading of the same page', () => {
    const pages: Record<string, string> = {
      'docs/one.md':
        '# One\n\n## Part two\n\n[ok](#part-two) [ok](two.md#two) [ok](../README.md)\n[gone](three.md) [bad](two.md#nope) [bad](#part-3)\n',
      'docs/two.md': '# Two\n',
      'README.md': '# Readme\n',
    };
    const problems = brokenLinks('docs/one.md', (f) => pages[f] ?? null);
    expect(problems).toEqual([
      'docs/one.md:6: three.md: no file docs/three.md',
      'docs/one.md:6: two.md#nope: docs/two.md has no heading with the anchor #nope',
      'docs/one.md:6: #part-3: docs/one.md has no heading with the anchor #part-3',
    ]);
  });

  it.each(docFiles())('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe("README's quick start", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const ci = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');

  it('starts with `npm install` and `npm start`, after what it needs', () => {
    const blocks = quickStartBlocks(readme);
    expect(npmCommands(blocks[0] ?? '', { indented: true })).toEqual(['npm install', 'npm start']);
    const section = readme.slice(readme.search(/^## Quick start$/m));
    // The requirements come before the first command.
    expect(section.indexOf('Node 22.12')).toBeGreaterThan(0);
    expect(section.indexOf('Node 22.12')).toBeLessThan(section.indexOf('```sh'));
  });

  it('has the commands .ci/run runs, in its order (`npm start`, a server, is the one CI leaves out)', () => {
    const documented = quickStartBlocks(readme).flatMap((block) => npmCommands(block, { indented: true }));
    expect(documented).toEqual(['npm install', 'npm start', 'npm test']);
    // .ci/run's own commands are at the start of a line; an indented `npm install --prefix …`
    // installs a Node for a test, not Quire.
    const run = npmCommands(ci, { indented: false });
    expect(run).toEqual(['npm install', 'npm test']);
    expect(run).toEqual(documented.filter((command) => command !== 'npm start'));
  });
});
