import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport, createBuildCaches } from '../../src/compile/build.ts';
import { webhookArticleJsonOf } from '../../src/articles/shapes.ts';
import { hashBytes } from '../../src/export/content-hash.ts';
import { readArticleBody, readManifest } from '../../src/export/export-files.ts';
import { previewRootOf } from '../../src/config/state-layout.ts';
import { readPreviewManifest } from '../../src/export/preview-trees.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

/** What builds keep beside dist/, and in their work folder. */
const beside = () => fs.readdirSync(p.root).filter((name) => name.startsWith('.dist'));
const inWorkDir = () => fs.readdirSync(path.join(p.root, '.dist.work')).filter((name) => name !== '.gitignore');
const settings = () => ({
  contentDir: p.contentDir,
  distDir: p.distDir,
  stateDir: p.stateDir,
  publicUrl: 'https://api.example.com',
});

function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        out[`${path.relative(dir, full)}/`] = 'dir:'; // an emptied folder left behind shows too
        walk(full);
      } else out[path.relative(dir, full)] = `${fs.statSync(full).mtimeMs}:${fs.readFileSync(full).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

/** A new process's build with the render cache only: no dist/ and no build state to reuse. */
async function buildFromRenderCache() {
  fs.rmSync(p.distDir, { recursive: true });
  fs.rmSync(path.join(p.stateDir, 'cache', 'build-state.v8'));
  const result = await buildExport(settings());
  expect(result.ok).toBe(true);
  return result.stats;
}

function setup(): void {
  p = createTempProject();
  writeSite(p, 'site');
  p.write('site/images/public.png', 'public-image');
  p.write('site/images/secret.png', 'draft-only-image');
  p.write(
    'site/articles/live.md',
    article(
      { title: 'Live', status: 'published', image: 'public.png', publishedAt: '2026-01-01', updatedAt: '2026-01-02' },
      'Published words.\n',
    ),
  );
  p.write(
    'site/articles/live-two.md',
    article(
      { title: 'Live two', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-03' },
      'More words.\n',
    ),
  );
  p.write(
    'site/articles/hidden.md',
    article({ title: 'Hidden plans', image: 'secret.png' }, 'TOP-SECRET-DRAFT-TEXT\n'),
  );
}

describe('static export', () => {
  it('writes the API bodies (webhook payloads are made from them), images and a manifest; drafts only in the preview tree, outside dist/', async () => {
    setup();
    const result = await buildExport(settings());
    expect(result.ok).toBe(true);
    const files = Object.keys(snapshotTree(p.distDir))
      .filter((k) => !k.endsWith('/'))
      .sort();
    expect(files).toEqual([
      'manifest.json',
      'site/articles.index.json',
      'site/articles.json',
      'site/articles/live-two.json',
      'site/articles/live.json',
      expect.stringMatching(/^site\/images\/public\.[0-9a-f]{16}\.png$/),
    ]);
    // Nothing of the draft in dist/, the manifest included (drafts-outside-dist.test.ts looks harder).
    const everything = Object.values(snapshotTree(p.distDir))
      .map((v) => Buffer.from(v.split(':')[1]!, 'base64').toString())
      .join('\n');
    expect(everything).not.toContain('TOP-SECRET-DRAFT-TEXT');
    expect(everything).not.toContain('Hidden plans');
    expect(everything).not.toContain('draft-only-image');
    expect(everything).not.toContain('hidden');
    const preview = readPreviewManifest(previewRootOf(p.stateDir), result.manifest!.buildId)!;
    const draft = JSON.parse(
      fs.readFileSync(path.join(p.stateDir, 'preview', result.manifest!.buildId, 'site/articles/hidden.json'), 'utf8'),
    );
    expect(draft).toMatchObject({
      slug: 'hidden',
      title: 'Hidden plans',
      html: expect.stringContaining('TOP-SECRET-DRAFT-TEXT'),
    });
    expect(preview.sites.site!.images).toEqual({
      'images/secret.png': expect.stringMatching(/^secret\.[0-9a-f]{16}\.png$/),
    });

    // The webhook payload is made from the stored body, and is the one the manifest's payloadHash names.
    const manifest = readManifest(p.distDir)!;
    const payloadJson = webhookArticleJsonOf(
      readArticleBody(p.distDir, 'site', 'live-two', manifest.sites.site!.articles['live-two']!.bodyHash),
    );
    expect(JSON.parse(payloadJson)).toEqual({
      id: 'live-two',
      title: 'Live two',
      slug: 'live-two',
      status: 'published',
      metaDescription: '',
      mdx: '\nMore words.\n',
      html: '<p>More words.</p>',
      imageUrl: '',
      imageAlt: '',
    });
    expect(hashBytes(payloadJson)).toBe(manifest.sites.site!.articles['live-two']!.payloadHash);
    expect(Object.keys(manifest.sites.site!.articles).sort()).toEqual(['live', 'live-two']);
    expect(manifest.sites.site!.articles.live).toMatchObject({
      file: 'articles/live.md',
      payloadHash: expect.any(String),
      bodyHash: expect.any(String),
    });
  });

  it('drops the webhook payload files of a format 4 tree on its first build', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    const manifestFile = path.join(p.distDir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { format: number };
    fs.mkdirSync(path.join(p.distDir, 'site/webhooks'));
    for (const slug of ['live', 'live-two']) fs.writeFileSync(path.join(p.distDir, `site/webhooks/${slug}.json`), '{}');
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, format: 4 }));
    const rebuilt = await buildExport(settings());
    expect(rebuilt).toMatchObject({ ok: true, written: true });
    expect(fs.existsSync(path.join(p.distDir, 'site/webhooks'))).toBe(false);
    expect(fs.existsSync(path.join(p.distDir, 'site/articles/live.json'))).toBe(true);
  });

  it('leaves the previous dist/ untouched when a build fails, and leaves no temp folders', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    const second = await buildExport(settings(), undefined);
    await second.cleanup();
    const before = snapshotTree(p.distDir);
    p.write('site/articles/live.md', '---\ntitle: Live\nstatus: published\nkind: [broken\n---\n');
    p.write('site/articles/new.md', article({ title: 'New', status: 'published' }));
    const failed = await buildExport(settings());
    expect(failed.ok).toBe(false);
    expect(failed.issues.some((i) => i.code === 'CONTENT_YAML_INVALID')).toBe(true);
    expect(snapshotTree(p.distDir)).toEqual(before);
    expect(fs.readdirSync(p.root).filter((n) => n.includes('dist'))).toEqual(['.dist.work', 'dist']);
    expect(inWorkDir()).toEqual([]); // the tree the failed build wrote is gone
  });

  it('re-renders only what changed, and rewrites nothing when nothing changed', async () => {
    setup();
    const first = await buildExport(settings());
    expect(first.stats).toMatchObject({ rendered: 3, cached: 0 });
    const manifestBefore = fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8');
    const again = await buildExport(settings());
    expect(again.stats).toMatchObject({ rendered: 0, cached: 0, reused: 0 });
    expect(again.written).toBe(false);
    expect(fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8')).toBe(manifestBefore);

    p.write(
      'site/articles/live-two.md',
      article(
        { title: 'Live two', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-04' },
        'Changed words.\n',
      ),
    );
    const changed = await buildExport(settings()); // a new process would read the same cache from .quire/
    // The changed article renders; the other published one and the unchanged draft (its preview
    // files) are taken over from dist/.
    expect(changed.stats).toMatchObject({ rendered: 1, cached: 0, reused: 2 });
    expect(changed.written).toBe(true);
    expect(fs.readFileSync(path.join(p.distDir, 'site/articles/live-two.json'), 'utf8')).toContain('Changed words.');
  });

  it('keeps the keys of each unchanged article from the last build, and computes them again when what they hash changes', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    const keysOf = (caches: ReturnType<typeof createBuildCaches>) =>
      new Map([...caches.state.sources].map(([file, e]) => [path.basename(file), caches.state.keys.get(e)!]));
    const load = () => createBuildCaches(p.stateDir); // as a new process does
    const before = keysOf(load());
    expect([...before.values()].every((k) => k?.checkKey)).toBe(true);

    // One article changes: only its keys are new; the others' come back from the state as they were.
    p.write(
      'site/articles/live-two.md',
      article(
        { title: 'Live two', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-03' },
        'Other words.\n',
      ),
    );
    expect((await buildExport(settings(), load())).ok).toBe(true);
    const after = keysOf(load());
    expect(after.get('live-two.md')!.checkKey).not.toBe(before.get('live-two.md')!.checkKey);
    expect(after.get('live.md')).toEqual(before.get('live.md'));
    expect(after.get('hidden.md')).toEqual(before.get('hidden.md'));
    // They are taken, not recomputed: a remembered key is what the build uses.
    const caches = load();
    const live = [...caches.state.sources].find(([file]) => file.endsWith('live.md'))![1];
    caches.state.keys.set(live, { ...caches.state.keys.get(live)!, inputKey: 'remembered' });
    p.write(
      'site/articles/live-two.md',
      article(
        { title: 'Live two', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-03' },
        'Third words.\n',
      ),
    );
    expect((await buildExport(settings(), caches)).ok).toBe(true);
    expect(readManifest(p.distDir)!.sites.site!.articles.live!.inputKey).toBe('remembered');

    // A site-wide input changes (an author the articles do not even name): every key is computed
    // again, and the output stays what a clean build gives.
    p.write('site/authors/new.yaml', 'name: New\n');
    const rebuilt = await buildExport(settings(), load());
    expect(rebuilt.ok).toBe(true);
    const again = keysOf(load());
    for (const name of ['live.md', 'live-two.md', 'hidden.md'])
      expect(again.get(name)!.context, name).not.toBe(after.get(name)!.context);
    expect(again.get('live.md')!.inputKey).toBe(after.get('live.md')!.inputKey); // the same inputs hash the same
  });

  it('remembers across processes which drafts had render problems, and reports them without rendering again', async () => {
    setup();
    p.write(
      'site/articles/broken-draft.md',
      article({ title: 'Broken draft' }, 'Text.\n\n![gone](../images/gone.png)\n'),
    );
    const first = await buildExport(settings());
    const problem = first.issues.find((i) => i.code === 'CONTENT_IMAGE_MISSING');
    expect(problem).toMatchObject({ file: path.join(p.contentDir, 'site/articles/broken-draft.md'), line: 7 });
    // No warm caches: the next build reads what the first learnt from the state dir. The failed
    // build wrote no dist/, so the articles come from the render cache (drafts too: their
    // preview files are written); none is rendered again.
    const second = await buildExport(settings());
    expect(second.stats).toMatchObject({ rendered: 0, cached: 4 });
    expect(second.issues.filter((i) => i.code === 'CONTENT_IMAGE_MISSING')).toEqual([problem]);
  });

  it('with write: false computes the new manifest and leaves dist/ exactly as it was', async () => {
    setup();
    await buildExport(settings());
    const before = snapshotTree(p.distDir);
    const manifestBefore = readManifest(p.distDir)!;
    p.write(
      'site/articles/live-two.md',
      article(
        { title: 'Live two', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-04' },
        'Changed words.\n',
      ),
    );
    const planned = await buildExport(settings(), undefined, { write: false });
    expect(planned).toMatchObject({ ok: true, written: false });
    expect(planned.stats).toMatchObject({ rendered: 1, reused: 2 }); // the other published one and the draft
    expect(planned.manifest!.sites.site!.articles['live-two']!.payloadHash).not.toBe(
      manifestBefore.sites.site!.articles['live-two']!.payloadHash,
    );
    expect(planned.manifest!.sites.site!.articles.live).toEqual(manifestBefore.sites.site!.articles.live);
    expect(snapshotTree(p.distDir)).toEqual(before);
    // The same manifest a real build then writes.
    const real = await buildExport(settings());
    expect(real.manifest!.sites).toEqual(planned.manifest!.sites);
  });

  it('keeps render results across processes in the state dir, and keys them by renderer version', async () => {
    setup();
    await buildExport(settings());
    expect(fs.statSync(path.join(p.stateDir, 'cache', 'render.db')).size).toBeGreaterThan(0);
    fs.rmSync(p.distDir, { recursive: true });
    const fresh = await buildExport(settings(), createBuildCaches(p.stateDir));
    expect(fresh.stats).toMatchObject({ rendered: 0, cached: 3, reused: 0 }); // two published, one draft
    expect(fs.existsSync(path.join(p.distDir, 'manifest.json'))).toBe(true);
    fs.rmSync(path.join(p.stateDir, 'cache', 'build-state.v8'));
    fs.rmSync(p.distDir, { recursive: true });
    expect((await buildExport(settings())).stats).toMatchObject({ rendered: 0, cached: 3 });
    fs.rmSync(p.stateDir, { recursive: true });
    fs.rmSync(p.distDir, { recursive: true });
    expect((await buildExport(settings())).stats).toMatchObject({ rendered: 3, cached: 0 });
  });

  it('renders again over an unreadable render cache, and starts a new one in its place', async () => {
    setup();
    await buildExport(settings());
    const cacheFile = path.join(p.stateDir, 'cache', 'render.db');
    for (const suffix of ['-wal', '-shm']) fs.rmSync(cacheFile + suffix, { force: true });
    fs.writeFileSync(cacheFile, 'not a database '.repeat(400));
    const legacy = path.join(p.stateDir, 'cache', 'render', 'ab');
    fs.mkdirSync(legacy, { recursive: true });
    fs.writeFileSync(path.join(legacy, 'ab12.json'), '{}');
    fs.rmSync(p.distDir, { recursive: true });
    fs.rmSync(path.join(p.stateDir, 'cache', 'build-state.v8'));
    const rebuilt = await buildExport(settings());
    expect(rebuilt.ok).toBe(true);
    expect(rebuilt.stats).toMatchObject({ rendered: 3, cached: 0 });
    expect(fs.existsSync(path.join(p.stateDir, 'cache', 'render'))).toBe(false); // the old one-file-per-entry layout
    fs.rmSync(p.distDir, { recursive: true });
    fs.rmSync(path.join(p.stateDir, 'cache', 'build-state.v8'));
    expect((await buildExport(settings())).stats).toMatchObject({ rendered: 0, cached: 3 });

    // A row that is not an entry this version wrote is a miss, and the render replaces it.
    const db = new Database(cacheFile);
    db.prepare('UPDATE entries SET entry = ? WHERE rowid = (SELECT min(rowid) FROM entries)').run('{"output":');
    db.prepare('UPDATE entries SET entry = ? WHERE rowid = (SELECT max(rowid) FROM entries)').run('{}');
    db.close();
    expect(await buildFromRenderCache()).toMatchObject({ rendered: 2, cached: 1 });
    expect(await buildFromRenderCache()).toMatchObject({ rendered: 0, cached: 3 });
  });

  it('replaces a render cache damaged inside with a new one', async () => {
    setup();
    await buildExport(settings());
    const cacheFile = path.join(p.stateDir, 'cache', 'render.db');
    const db = new Database(cacheFile);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    // The header stays valid, so opening works; every page after it is garbage.
    const bytes = fs.readFileSync(cacheFile);
    expect(bytes.length).toBeGreaterThan(4096);
    fs.writeFileSync(cacheFile, Buffer.concat([bytes.subarray(0, 4096), Buffer.alloc(bytes.length - 4096, 0xa5)]));
    expect(await buildFromRenderCache()).toMatchObject({ rendered: 3, cached: 0 });
    // The damaged file was deleted and the same build wrote its entries into a new one.
    expect(await buildFromRenderCache()).toMatchObject({ rendered: 0, cached: 3 });
  });

  it('renders again when an image the body uses changes', async () => {
    setup();
    p.write('site/articles/pic.md', article({ title: 'Pic', status: 'published' }, '![p](../images/public.png)\n'));
    const caches = createBuildCaches(p.stateDir);
    await buildExport(settings(), caches);
    const html1 = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site/articles/pic.json'), 'utf8')).html;
    const file = p.write('site/images/public.png', 'a different picture');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const second = await buildExport(settings(), caches);
    const html2 = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site/articles/pic.json'), 'utf8')).html;
    expect(html2).not.toBe(html1);
    expect(second.stats.rendered).toBe(1);
    const [img] = fs.readdirSync(path.join(p.distDir, 'site/images'));
    expect(html2).toContain(`https://api.example.com/assets/site/${img}`);
  });

  it('fails on a content folder with no sites', async () => {
    p = createTempProject();
    const result = await buildExport(settings());
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.code)).toEqual(['CONTENT_NO_SITES']);
  });
});

describe('a build of many chunks', () => {
  it('writes every article of every chunk once, with its own body', async () => {
    const { CHUNK } = await import('../../src/compile/render-in-chunks.ts');
    p = createTempProject();
    writeSite(p, 'site');
    const count = 2 * CHUNK + 7; // three chunks: two under way at once, then a short one
    for (let i = 0; i < count; i++) {
      const day = String((i % 28) + 1).padStart(2, '0');
      p.write(
        `site/articles/c${i}.md`,
        article(
          { title: `C ${i}`, status: 'published', publishedAt: `2026-01-${day}`, updatedAt: `2026-01-${day}` },
          `Body of **${i}**.\n`,
        ),
      );
    }
    const result = await buildExport(settings());
    await result.cleanup();
    expect(result.ok).toBe(true);
    expect(result.stats).toMatchObject({ articles: count, published: count, rendered: count });
    const list = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site/articles.json'), 'utf8')) as {
      total: number;
      articles: { slug: string }[];
    };
    expect(list.total).toBe(count);
    expect(new Set(list.articles.map((a) => a.slug)).size).toBe(count);
    for (const i of [0, CHUNK - 1, CHUNK, 2 * CHUNK, count - 1]) {
      const body = JSON.parse(fs.readFileSync(path.join(p.distDir, `site/articles/c${i}.json`), 'utf8')) as {
        title: string;
        html: string;
      };
      expect(body).toMatchObject({ title: `C ${i}`, html: `<p>Body of <strong>${i}</strong>.</p>` });
    }
  });
});

describe('render workers', () => {
  it('give exactly the output of rendering in this thread, problems included', async () => {
    const { createRenderPool, POOL_THRESHOLD } = await import('../../src/compile/render-pool.ts');
    p = createTempProject();
    writeSite(p, 'site');
    p.write('site/images/pic.png', 'pixels');
    for (let i = 0; i < POOL_THRESHOLD + 20; i++) {
      p.write(
        `site/articles/n${i}.md`,
        article(
          { title: `N ${i}`, status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' },
          `Text ${i} with https://example.com/${i} and ![p](../images/pic.png)\n\n<details><summary>${i}</summary>x</details>\n`,
        ),
      );
    }
    const treeOf = async (workers: number) => {
      p.remove('../dist');
      const pool = createRenderPool(workers);
      try {
        const result = await buildExport(
          { ...settings(), stateDir: path.join(p.root, `state-${workers}`) },
          undefined,
          { pool },
        );
        expect(result.ok).toBe(true);
        expect(result.stats.rendered).toBe(POOL_THRESHOLD + 20);
      } finally {
        await pool.close();
      }
      const tree = snapshotTree(p.distDir);
      return Object.fromEntries(
        Object.entries(tree)
          .filter(([k]) => k !== 'manifest.json')
          .map(([k, v]) => [k, v.split(':')[1]]),
      );
    };
    const inline = await treeOf(0);
    const pooled = await treeOf(2);
    expect(Object.keys(pooled).length).toBe(Object.keys(inline).length);
    expect(pooled).toEqual(inline);
    expect(JSON.parse(Buffer.from(inline['site/articles/n3.json']!, 'base64').toString()).html).toMatch(
      /<img src="https:\/\/api\.example\.com\/assets\/site\/pic\.[0-9a-f]{16}\.png" alt="p">/,
    );

    p.write('site/articles/n5.md', article({ title: 'N 5', status: 'published' }, '![gone](../images/gone.png)\n'));
    for (let i = 0; i < POOL_THRESHOLD; i++)
      p.write(`site/articles/m${i}.md`, article({ title: `M ${i}` }, `Fresh ${i}\n`));
    const pool = createRenderPool(2);
    try {
      const failed = await buildExport({ ...settings(), stateDir: path.join(p.root, 'state-x') }, undefined, { pool });
      expect(failed.ok).toBe(false);
      expect(failed.issues.find((i) => i.code === 'CONTENT_IMAGE_MISSING')).toMatchObject({
        file: path.join(p.contentDir, 'site/articles/n5.md'),
        line: 6,
        column: 1,
      });
    } finally {
      await pool.close();
    }
  });
});

describe('render workers and the render cache', () => {
  it('are not started when every changed article is in the render cache, and are when one chunk is not', async () => {
    const { createRenderPool, POOL_THRESHOLD } = await import('../../src/compile/render-pool.ts');
    p = createTempProject();
    writeSite(p, 'site');
    const count = POOL_THRESHOLD + 4;
    for (let i = 0; i < count; i++)
      p.write(
        `site/articles/w${i}.md`,
        article(
          { title: `W ${i}`, status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' },
          `Words ${i}\n`,
        ),
      );
    const run = async () => {
      const real = createRenderPool(1);
      const calls = { warm: 0, renders: 0 };
      const pool = {
        ...real,
        warm: () => (calls.warm++, real.warm()),
        renderEach: (...args: Parameters<typeof real.renderEach>) => (calls.renders++, real.renderEach(...args)),
      };
      try {
        const result = await buildExport(settings(), undefined, { pool });
        expect(result.ok).toBe(true);
        return { ...calls, rendered: result.stats.rendered, cached: result.stats.cached };
      } finally {
        await real.close();
      }
    };
    // Nothing cached: started while loading, and given every article.
    expect(await run()).toEqual({ warm: 1, renders: 1, rendered: count, cached: 0 });
    // A fresh checkout with the cache kept: every file looks changed, and nothing is to render.
    fs.rmSync(p.distDir, { recursive: true });
    fs.rmSync(path.join(p.stateDir, 'cache', 'build-state.v8'));
    expect(await run()).toEqual({ warm: 0, renders: 0, rendered: 0, cached: count });
    // Enough articles changed since: the workers start when the chunk misses the cache.
    for (let i = 0; i < POOL_THRESHOLD; i++)
      p.write(
        `site/articles/w${i}.md`,
        article(
          { title: `W ${i}`, status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' },
          `New words ${i}\n`,
        ),
      );
    expect(await run()).toEqual({ warm: 0, renders: 1, rendered: POOL_THRESHOLD, cached: 0 });
  });
});

describe('render workers under their memory cap', () => {
  // 24 MB: room for a worker's own start (about 14 MB) and small documents, not for a list of
  // 1,200 items (about 400 already go over). At 16 MB a fresh worker could die on small work too.
  const CAP_MB = 24;

  it('render a document too big for a worker in the main thread, and go on with a fresh worker', async () => {
    const { createRenderPool } = await import('../../src/compile/render-pool.ts');
    const { renderMarkdown } = await import('../../src/render/render-markdown.ts');
    const big = Array.from(
      { length: 1200 },
      (_, i) => `- item ${i} with *emphasis* and [a link](https://example.com/${i})`,
    ).join('\n');
    // Batches after the big one's were already posted to the worker that dies: a fresh one takes them.
    const small = Array.from({ length: 20 }, (_, i) => `small *${i}*`);
    const inputs = ['before', big, ...small, 'after *this*'].map((markdown) => ({
      markdown,
      lang: 'en',
      articleDir: 'articles',
      bodyLine: 1,
    }));
    const pool = createRenderPool(1, CAP_MB);
    try {
      const outputs = await pool.render('site', 'https://api.example.com', new Map(), inputs);
      expect(pool.fallbacks).toBeGreaterThan(0);
      expect(pool.lost).toBeGreaterThan(0);
      expect(outputs.map((o) => o.html)).toEqual(
        inputs.map((i) => renderMarkdown({ ...i, resolveImage: () => undefined }).html),
      );
      const again = await pool.render('site', 'https://api.example.com', new Map(), [inputs.at(-1)!]);
      expect(again[0]!.html).toBe('<p>after <em>this</em></p>');
    } finally {
      await pool.close();
    }
  });

  it('replace a worker that died with nothing to do, so the next render does not wait for ever', async () => {
    const { createRenderPool } = await import('../../src/compile/render-pool.ts');
    // Under 8 MB a worker cannot even start: warmed, it dies idle; each one started for the render
    // dies too, with the batch, which is then rendered here.
    const pool = createRenderPool(1, 8);
    try {
      pool.warm();
      await expect.poll(() => pool.lost, { timeout: 20_000 }).toBe(1);
      const outputs = await pool.render('site', 'https://api.example.com', new Map(), [
        { markdown: 'still *rendered*', lang: 'en', articleDir: 'articles', bodyLine: 1 },
      ]);
      expect(outputs[0]!.html).toBe('<p>still <em>rendered</em></p>');
      expect(pool.fallbacks).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('stop starting workers that die before they are ready, and render the rest here', async () => {
    const { createRenderPool } = await import('../../src/compile/render-pool.ts');
    // 8 MB: no worker can load the renderer. 50 batches: before, each started a worker that died.
    const pool = createRenderPool(1, 8);
    try {
      const inputs = Array.from({ length: 400 }, (_, i) => ({
        markdown: `doc *${i}*`,
        lang: 'en',
        articleDir: 'articles',
        bodyLine: 1,
      }));
      const outputs = await pool.render('site', 'https://api.example.com', new Map(), inputs);
      expect(outputs.map((o) => o.html)).toEqual(inputs.map((_, i) => `<p>doc <em>${i}</em></p>`));
      expect(pool.lost).toBe(2);
      expect(pool.fallbacks).toBe(50);
      const again = await pool.render('site', 'https://api.example.com', new Map(), inputs.slice(0, 1));
      expect(again[0]!.html).toBe('<p>doc <em>0</em></p>');
      expect(pool.lost).toBe(2);
    } finally {
      await pool.close();
    }
  });
});

describe('a render pool of no fixed size', () => {
  it('renders what a fixed one does, with the workers the machine has room for', async () => {
    const { createRenderPool } = await import('../../src/compile/render-pool.ts');
    const { renderMarkdown } = await import('../../src/render/render-markdown.ts');
    const inputs = Array.from({ length: 200 }, (_, i) => ({
      markdown: `doc *${i}* [link](https://example.com/${i})`,
      lang: 'en',
      articleDir: 'articles',
      bodyLine: 1,
    }));
    const pool = createRenderPool();
    try {
      // Long enough for the pool to look at the machine and maybe start more workers.
      const first = await pool.render('site', 'https://api.example.com', new Map(), inputs);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const second = await pool.render('site', 'https://api.example.com', new Map(), inputs);
      const expected = inputs.map((i) => renderMarkdown({ ...i, resolveImage: () => undefined }).html);
      expect(first.map((o) => o.html)).toEqual(expected);
      expect(second.map((o) => o.html)).toEqual(expected);
    } finally {
      await pool.close();
    }
  });
});

describe('a closed render pool', () => {
  it('rejects the work it still had, and refuses later renders instead of starting workers again', async () => {
    const { createRenderPool, RenderPoolClosedError } = await import('../../src/compile/render-pool.ts');
    const inputs = Array.from({ length: 40 }, (_, i) => ({
      markdown: `doc *${i}*`,
      lang: 'en',
      articleDir: 'articles',
      bodyLine: 1,
    }));
    const pool = createRenderPool(1);
    const rejected = expect(pool.render('site', 'https://api.example.com', new Map(), inputs)).rejects.toBeInstanceOf(
      RenderPoolClosedError,
    );
    await pool.close(); // before the worker, still starting, can answer
    await rejected;
    await expect(pool.render('site', 'https://api.example.com', new Map(), inputs)).rejects.toBeInstanceOf(
      RenderPoolClosedError,
    );
  });
});

describe('incremental builds', () => {
  it('save the build state only when they learnt something: not after a build of nothing new', async () => {
    setup();
    const stateFile = path.join(p.stateDir, 'cache', 'build-state.v8');
    const first = await buildExport(settings());
    expect(first.ok).toBe(true);
    const saved = () => {
      const st = fs.statSync(stateFile);
      return `${st.ino}:${st.mtimeMs}`;
    };
    const afterFirst = saved();
    const again = await buildExport(settings());
    expect(again.written).toBe(false);
    expect(saved()).toBe(afterFirst); // nothing read, nothing dropped: not written again
    // The same bytes with a new mtime: read again (a new stat to keep), so saved, with nothing built.
    const live = path.join(p.contentDir, 'site/articles/live.md');
    fs.utimesSync(live, new Date(), new Date(Date.now() + 10_000));
    const touched = await buildExport(settings());
    expect(touched.written).toBe(false);
    expect(saved()).not.toBe(afterFirst);
    const afterTouch = saved();
    // And the next build does not read it again: nothing to save.
    await buildExport(settings());
    expect(saved()).toBe(afterTouch);
  });

  it('give the same dist/ as a clean build after every kind of edit', async () => {
    p = createTempProject();
    writeSite(p, 'site');
    p.write('site/authors/ada.yaml', 'name: Ada\n');
    p.write('site/images/pic.png', 'one');
    const d = { publishedAt: '2026-01-01', updatedAt: '2026-01-02' };
    p.write(
      'site/articles/a.md',
      article(
        { title: 'A', status: 'published', author: 'ada', related: '[b, c]', ...d },
        'A body ![p](../images/pic.png)\n',
      ),
    );
    p.write('site/articles/b.md', article({ title: 'B', status: 'published', ...d }, 'B body\n'));
    p.write('site/articles/c.md', article({ title: 'C draft', ...d }, 'C body\n'));
    const incremental = settings();
    const clean = (n: number) => ({
      ...settings(),
      distDir: path.join(p.root, `clean-${n}`),
      stateDir: path.join(p.root, `clean-state-${n}`),
    });
    const files = (dir: string) =>
      Object.fromEntries(
        Object.entries(snapshotTree(dir))
          .filter(([k]) => k !== 'manifest.json')
          .map(([k, v]) => [k, v.split(':')[1]]),
      );
    const edits: (() => void)[] = [
      () => {},
      () => p.write('site/articles/b.md', article({ title: 'B renamed', status: 'published', ...d }, 'B body\n')),
      () => p.write('site/authors/ada.yaml', 'name: Ada Lovelace\nurl: https://ada.example.com\n'),
      () => p.write('site/site.yaml', 'name: Renamed site\nlang: en\nurl: https://site.example.com\n'),
      () => p.write('site/articles/c.md', article({ title: 'C', status: 'published', ...d }, 'C body\n')),
      () => {
        p.write(
          'site/articles/a.md',
          article(
            { title: 'A', status: 'published', author: 'ada', related: '[c]', ...d },
            'A body ![p](../images/pic.png)\n',
          ),
        );
        p.remove('site/articles/b.md');
      },
      () => {
        const f = p.write('site/images/pic.png', 'two!');
        fs.utimesSync(f, new Date(), new Date(Date.now() + 10_000));
      },
      () =>
        p.write(
          'site/articles/a.md',
          article(
            { title: 'A', status: 'published', author: 'ada', related: '[c]', ...d },
            'A body changed ![p](../images/pic.png)\n',
          ),
        ),
      () => p.write('site/articles/c.md', article({ title: 'C', ...d }, 'C body\n')),
      // An image only a draft uses (in the preview tree only), then changed.
      () => {
        p.write('site/images/draft-only.png', 'draft');
        p.write('site/articles/c.md', article({ title: 'C', ...d }, 'C body ![d](../images/draft-only.png)\n'));
      },
      () => {
        const f = p.write('site/images/draft-only.png', 'draft, changed');
        fs.utimesSync(f, new Date(), new Date(Date.now() + 10_000));
      },
      () => {
        writeSite(p, 'other');
        p.write('other/articles/x.md', article({ title: 'X', status: 'published', ...d }, 'X body\n'));
      },
      () => p.remove('other'),
      // Bodies over 1 KiB get compressed variants: an article (and so the list) grows over it,
      // shrinks under it, and one that has them is removed.
      () =>
        p.write(
          'site/articles/b.md',
          article({ title: 'B', status: 'published', ...d }, 'B body, long.\n\n'.repeat(120)),
        ),
      () =>
        p.write(
          'site/articles/c.md',
          article({ title: 'C', status: 'published', ...d }, 'C body, long.\n\n'.repeat(120)),
        ),
      () => p.write('site/articles/b.md', article({ title: 'B', status: 'published', ...d }, 'B body\n')),
      () => {
        p.write(
          'site/articles/a.md',
          article({ title: 'A', status: 'published', author: 'ada', ...d }, 'A body changed ![p](../images/pic.png)\n'),
        );
        p.remove('site/articles/c.md');
      },
    ];
    const encodedSeen: string[] = [];
    const spare = path.join(p.root, '.dist.work', 'spare');
    const spareFiles = () =>
      Object.fromEntries(Object.entries(files(spare)).filter(([k]) => k !== '.quire-spare.json'));
    for (const [n, edit] of edits.entries()) {
      edit();
      const before = fs.existsSync(p.distDir) ? files(p.distDir) : null;
      const spareDir = fs.existsSync(spare) ? fs.statSync(spare).ino : null;
      const inc = await buildExport(incremental);
      const ref = await buildExport(clean(n));
      expect(inc.ok && ref.ok, `edit ${n}`).toBe(true);
      expect(files(p.distDir), `edit ${n}`).toEqual(files(clean(n).distDir));
      expect(readManifest(p.distDir)!.buildId, `edit ${n}`).toBe(readManifest(clean(n).distDir)!.buildId);
      // The drafts too: the preview tree taken over and patched is the one a clean build writes.
      const previewTree = (s: { stateDir: string }) => files(path.join(s.stateDir, 'preview', inc.manifest!.buildId));
      expect(previewTree(incremental), `edit ${n}`).toEqual(previewTree(clean(n)));
      await inc.cleanup();
      // The replaced tree is kept as the spare, exactly as it was served: writing the new tree
      // never wrote into a file the two shared.
      expect(beside(), `edit ${n}`).toEqual(['.dist.work']);
      expect(inWorkDir(), `edit ${n}`).toEqual(before ? ['spare'] : []);
      if (before) expect(spareFiles(), `edit ${n}`).toEqual(before);
      // From the second rebuild on, the new tree is the spare brought up to date, not a new one.
      if (spareDir !== null && inc.written) expect(fs.statSync(p.distDir).ino, `edit ${n}`).toBe(spareDir);
      encodedSeen.push(...Object.keys(files(p.distDir)).filter((k) => k.endsWith('.br')));
    }
    // The edits above did make compressed variants (so the comparisons covered them).
    expect(encodedSeen).toContain('site/articles/b.json.br');
  });

  it('keep a process that waits for their clean-up alive until it is done', () => {
    setup();
    const script = path.join(p.root, 'rebuild.mts');
    const src = path.resolve(import.meta.dirname, '../../src/compile/build.ts');
    fs.writeFileSync(
      script,
      [
        `import fs from 'node:fs';`,
        `import { buildExport } from ${JSON.stringify(src)};`,
        `const settings = ${JSON.stringify(settings())};`,
        `await (await buildExport(settings)).cleanup();`,
        `fs.appendFileSync(${JSON.stringify(path.join(p.contentDir, 'site/articles/live.md'))}, 'More.\\n');`,
        `const second = await buildExport(settings);`,
        `await second.cleanup();`,
        `console.log('cleaned', second.written, fs.readdirSync(${JSON.stringify(p.root)}).filter((n) => n.startsWith('.dist')).length);`,
      ].join('\n'),
    );
    const tsx = path.resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
    // Left beside dist/: only the spare (the replaced tree, for the next build to start from).
    expect(execFileSync(tsx, [script], { encoding: 'utf8' }).trim()).toBe('cleaned true 1');
    expect(beside()).toEqual(['.dist.work']);
    expect(inWorkDir()).toEqual(['spare']);
  });

  it('sweep trees that killed builds left beside dist/, but not those of a build still running', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    const deadPid = 4_194_301; // above any pid this machine hands out
    // In the work folder, and directly beside dist/ where older versions kept them.
    const dead = [
      `.dist.work/old-${deadPid}-0badc0de`,
      `.dist.work/tmp-${deadPid}-deadbeef`,
      `.dist.old-${deadPid}-0badc0de`,
      `.dist.tmp-${deadPid}-deadbeef`,
      '.dist.spare',
    ];
    const running = `tmp-${process.pid}-feedf00d`;
    for (const name of [...dead, `.dist.work/${running}`]) p.write(`../${name}/site/articles/x.json`, '{}');
    p.write('site/articles/live.md', article({ title: 'Live again', status: 'published' }, 'Changed.\n'));
    const result = await buildExport(settings());
    expect(result.ok && result.written).toBe(true);
    await result.cleanup();
    expect(beside()).toEqual(['.dist.work']);
    expect(inWorkDir().sort()).toEqual(['spare', running]);
    expect(JSON.parse(fs.readFileSync(path.join(p.distDir, 'site/articles/live.json'), 'utf8')).title).toBe(
      'Live again',
    );
  });
});
