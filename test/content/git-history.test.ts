import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

async function datesOf(slug: string) {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
  const body = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site', 'articles', `${slug}.json`), 'utf8'));
  return { publishedAt: body.publishedAt, updatedAt: body.updatedAt };
}

describe('dates from git history', () => {
  it('publishedAt is the commit that first had it published, updatedAt the last commit that changed it', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    p.write('site/articles/story.md', article({ title: 'Story' }, 'Draft text.\n'));
    p.commit('draft', '2026-01-01T10:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story' }, 'Better draft text.\n'));
    p.commit('edit draft', '2026-01-05T10:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story', status: 'published' }, 'Better draft text.\n'));
    p.commit('publish', '2026-02-01T08:30:00+02:00');
    p.write('site/articles/other.md', article({ title: 'Other', status: 'published' }));
    p.commit('unrelated', '2026-02-15T00:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story', status: 'published' }, 'Final text.\n'));
    p.commit('edit', '2026-03-01T12:00:00Z');
    expect(await datesOf('story')).toEqual({ publishedAt: '2026-02-01T06:30:00Z', updatedAt: '2026-03-01T12:00:00Z' });
    expect(await datesOf('other')).toEqual({ publishedAt: '2026-02-15T00:00:00Z', updatedAt: '2026-02-15T00:00:00Z' });
  });

  it('an old version larger than an article may be is not read as published, and later versions still are', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    const { CONTENT_LIMITS } = await import('../../src/content/limits.ts');
    p.write(
      'site/articles/story.md',
      article({ title: 'Story', status: 'published' }, 'word '.repeat(CONTENT_LIMITS.articleBytes / 4)),
    );
    p.commit('too large', '2026-01-01T00:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story' }, 'Draft.\n'));
    p.commit('draft', '2026-01-05T00:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story', status: 'published' }, 'Published.\n'));
    p.commit('publish', '2026-02-01T00:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story', status: 'published' }, 'Edited.\n'));
    p.commit('edit', '2026-03-01T00:00:00Z');
    expect(await datesOf('story')).toEqual({ publishedAt: '2026-02-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z' });
  });

  it('follows a rename, keeping the dates', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    p.write(
      'site/articles/old-name.md',
      article(
        { title: 'Moved', slug: 'moved', status: 'published' },
        'A body long enough for git to see a rename.\n'.repeat(5),
      ),
    );
    p.commit('publish', '2026-01-01T00:00:00Z');
    fs.mkdirSync(path.join(p.contentDir, 'site/articles/2026'));
    p.git('mv', 'content/site/articles/old-name.md', 'content/site/articles/2026/new-name.md');
    p.commit('move', '2026-01-10T00:00:00Z');
    expect(await datesOf('moved')).toEqual({ publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-10T00:00:00Z' });
  });

  it('starts over for a file deleted and created again', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    p.write('site/articles/phoenix.md', article({ title: 'Phoenix', status: 'published' }, 'first life\n'));
    p.commit('first', '2026-01-01T00:00:00Z');
    p.remove('site/articles/phoenix.md');
    p.commit('delete', '2026-02-01T00:00:00Z');
    p.write('site/articles/phoenix.md', article({ title: 'Phoenix', status: 'published' }, 'second life\n'));
    p.commit('again', '2026-03-01T00:00:00Z');
    expect(await datesOf('phoenix')).toEqual({
      publishedAt: '2026-03-01T00:00:00Z',
      updatedAt: '2026-03-01T00:00:00Z',
    });
  });

  it("uses the file's mtime for uncommitted work", async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    p.write('site/articles/committed.md', article({ title: 'C', status: 'published' }));
    p.commit('one', '2026-01-01T00:00:00Z');
    const edited = p.write('site/articles/committed.md', article({ title: 'C', status: 'published' }, 'changed\n'));
    const fresh = p.write('site/articles/fresh.md', article({ title: 'F', status: 'published' }));
    const when = new Date('2026-04-04T04:04:04Z');
    fs.utimesSync(edited, when, when);
    fs.utimesSync(fresh, when, when);
    expect(await datesOf('committed')).toEqual({
      publishedAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-04-04T04:04:04Z',
    });
    expect(await datesOf('fresh')).toEqual({ publishedAt: '2026-04-04T04:04:04Z', updatedAt: '2026-04-04T04:04:04Z' });
  });

  it('prefers front matter dates, and works outside a git repository', async () => {
    p = createTempProject();
    writeSite(p, 'site');
    const file = p.write('site/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2025-12-24' }));
    const when = new Date('2026-05-05T05:05:05.789Z');
    fs.utimesSync(file, when, when);
    expect(await datesOf('a')).toEqual({ publishedAt: '2025-12-24T00:00:00Z', updatedAt: '2026-05-05T05:05:05Z' });
  });
});
