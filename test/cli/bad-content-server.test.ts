// One bad file never takes the server down: `start` and `dev` keep serving the last good build,
// the watcher survives, and the admin's Articles tab shows the last build instead of reading files.
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, signIn } from '../helpers/admin-server.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const envFor = (proj: TempProject) => ({
  QUIRE_CONTENT_DIR: proj.contentDir,
  QUIRE_DIST_DIR: proj.distDir,
  QUIRE_STATE_DIR: proj.stateDir,
  QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
  PORT: '0',
});

const DEEP = `---\ntitle: Deep\nstatus: published\n---\n${'>'.repeat(10_000)} x\n`;
const ALIAS_BOMB = `---\ntitle: Bomb\na: &a ["x","x","x","x","x","x","x","x","x"]\n${Array.from(
  { length: 9 },
  (_, i) => {
    const [name, prev] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
    return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`;
  },
).join('\n')}\n---\n`;

function goodProject(): TempProject {
  p = createTempProject();
  writeSite(p, 'site');
  p.write(
    'site/articles/good.md',
    article({ title: 'Good', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
  );
  return p;
}

async function titles(output: string): Promise<string[]> {
  const [, key, url] = output.match(/curl -H "Authorization: Bearer (\S+)" (\S+)\n/)!;
  const res = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { articles: { title: string }[] }).articles.map((a) => a.title);
}

async function waitFor(check: () => boolean | Promise<boolean>, output: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out:\n${output()}`);
}

describe('a bad file and the server', () => {
  it('start reports the file and serves the last good build', async () => {
    goodProject();
    expect((await runCli(['build'], envFor(p), p.root)).code).toBe(0);
    p.write('site/articles/deep.md', DEEP);
    const server = await startCli(['start'], envFor(p), /Publishing app: .*\n/);
    try {
      expect(server.output()).toMatch(/content\/site\/articles\/deep\.md:5:1 .*\[CONTENT_TOO_DEEP\]/);
      expect(server.output()).toContain('Serving the last good build.');
      expect(await titles(server.output())).toEqual(['Good']);
    } finally {
      await server.stop();
    }
  });

  it('dev survives a file that cannot be rendered, and serves the next good build', async () => {
    goodProject();
    const server = await startCli(['dev'], envFor(p), /Watching .*\n/);
    try {
      p.write('site/articles/deep.md', DEEP);
      await waitFor(
        () => /deep\.md:5:1 .*\[CONTENT_TOO_DEEP\][\s\S]*The last good build stays up/.test(server.output()),
        server.output,
      );
      expect(server.child.exitCode).toBe(null);
      p.write(
        'site/articles/deep.md',
        article({ title: 'Fixed', status: 'published', publishedAt: '2026-02-01', updatedAt: '2026-02-01' }),
      );
      await waitFor(async () => (await titles(server.output())).includes('Fixed'), server.output);
    } finally {
      await server.stop();
    }
  });

  it('the Articles tab shows the last build and reads no file while answering', async () => {
    goodProject();
    p.write('site/articles/draft.md', article({ title: 'A draft' }));
    const server = await startCli(['start'], envFor(p), /Publishing app: (\S+)\/admin/);
    try {
      // Written after the build: `start` does not watch, so the tab must not read them.
      p.write('site/articles/bomb.md', ALIAS_BOMB);
      p.write('site/articles/code.md', `---js\n{ title: (require("fs").writeFileSync("x", "ran"), "T") }\n---\n`);
      const base = server.match[1]!;
      const admin = await signIn(base);
      const res = await admin.get('/admin/sites/site/articles');
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('Good');
      expect(html).toContain('A draft');
      expect(html).not.toContain('bomb.md');
    } finally {
      await server.stop();
    }
  });
});
