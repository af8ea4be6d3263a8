// Nothing under the content tree may lead outside it: every symbolic link is a problem, none is followed.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const SECRET = 'server-secret-that-must-not-leave-the-machine';

/** A site with one published article using `image: secret`, and a secret file outside the content tree. */
function project(): { outside: string } {
  p = createTempProject({ git: true });
  writeSite(p, 'site');
  p.write('site/authors/ada.yaml', 'name: Ada\n');
  p.write('site/articles/post.md', article({ title: 'Post', status: 'published', image: 'secret', author: 'ada' }));
  const outside = path.join(p.root, 'private');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret'), SECRET);
  fs.writeFileSync(path.join(outside, 'site.yaml'), 'name: Leaked\nlang: en\nurl: https://leak.example\n');
  fs.writeFileSync(path.join(outside, 'ada.yaml'), `name: ${SECRET}\n`);
  fs.writeFileSync(path.join(outside, 'post.md'), article({ title: SECRET, status: 'published' }));
  return { outside };
}

function link(target: string, rel: string): void {
  const at = path.join(p.contentDir, rel);
  fs.rmSync(at, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
}

async function build() {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  return {
    result,
    symlinks: result.issues
      .filter((i) => i.code === 'CONTENT_SYMLINK')
      .map((i) => `${path.relative(p.contentDir, i.file)}:${i.line}`),
  };
}

/** Every file under dist/, read: none may hold the secret. */
function distText(): string {
  if (!fs.existsSync(p.distDir)) return '';
  return (fs.readdirSync(p.distDir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('symbolic links in the content tree', () => {
  it.each([
    ['the images folder', (o: string) => link(o, 'site/images'), 'site/images:1'],
    ['the articles folder', (o: string) => link(o, 'site/articles'), 'site/articles:1'],
    ['the authors folder', (o: string) => link(o, 'site/authors'), 'site/authors:1'],
    ['site.yaml', (o: string) => link(path.join(o, 'site.yaml'), 'site/site.yaml'), 'site/site.yaml:1'],
    [
      'an author file',
      (o: string) => link(path.join(o, 'ada.yaml'), 'site/authors/ada.yaml'),
      'site/authors/ada.yaml:1',
    ],
    ['an article', (o: string) => link(path.join(o, 'post.md'), 'site/articles/post.md'), 'site/articles/post.md:1'],
    ['an image', (o: string) => link(path.join(o, 'secret'), 'site/images/secret'), 'site/images/secret:1'],
    ['a whole site', (o: string) => link(o, 'other'), 'other:1'],
  ])(
    '%s that leads outside is refused with its place, and nothing of it reaches dist/',
    async (_label, make, place) => {
      const { outside } = project();
      p.write('site/images/keep.png', 'png');
      make(outside);
      const { result, symlinks } = await build();
      expect(symlinks).toEqual([place]);
      expect(result.ok).toBe(false);
      expect(distText()).not.toContain(SECRET);
    },
  );

  it('a link committed to git and checked out is refused too', async () => {
    const { outside } = project();
    link(path.join(outside), 'site/images');
    p.commit('images as a link', '2026-01-01T00:00:00Z');
    const clone = path.join(p.root, 'clone');
    p.git('clone', '-q', p.root, clone);
    expect(fs.lstatSync(path.join(clone, 'content/site/images')).isSymbolicLink()).toBe(true);
    const result = await buildExport({
      contentDir: path.join(clone, 'content'),
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://x',
    });
    expect(result.issues.map((i) => [path.relative(clone, i.file), i.code])).toContainEqual([
      'content/site/images',
      'CONTENT_SYMLINK',
    ]);
    expect(distText()).not.toContain(SECRET);
  });

  it('a link that stays inside the tree is refused as well', async () => {
    project();
    p.write('site/images/real.png', 'png');
    link('real.png', 'site/images/alias.png');
    link('post.md', 'site/articles/again.md');
    const { symlinks } = await build();
    expect(symlinks).toEqual(['site/articles/again.md:1', 'site/images/alias.png:1']);
  });
});
