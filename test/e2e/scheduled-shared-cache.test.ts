// A shared cache in front of Quire (real nginx with proxy_cache) must not hide a go-live: the
// list it caches before is fresh again within a second of the instant, because Quire capped its
// max-age; answers to a preview key are never cached. Real `quire start`, real nginx.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx, freePort, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';

const nginx = findNginx();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let proxy: RunningNginx;
let base: string;
let goLive: number;
let keys: { key: string; previewKey: string };

beforeAll(async () => {
  if (!nginx) throw new Error('nginx is not installed: .ci/run installs it (apt-get install nginx-light)');
  p = createTempProject();
  goLive = Math.ceil((Date.now() + 9_000) / 1000) * 1000;
  p.write('one/site.yaml', 'name: One\nlang: en\nurl: https://one.example.com\n');
  p.write('one/articles/now.md', article({ title: 'Now', status: 'published', publishedAt: '2026-01-01' }));
  p.write('one/articles/soon.md', article({ title: 'Soon', status: 'published', publishedAt: iso(goLive) }));
  p.write('one/articles/wip.md', article({ title: 'Draft' }));
  const env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_SECRET: 'c'.repeat(40),
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /Content API on http:\/\/[^:]+:(\d+)\/v1/);
  keys = (JSON.parse((await runCli(['keys', '--json'], env)).stdout) as { key: string; previewKey: string }[])[0]!;
  const dir = path.join(p.root, 'nginx');
  fs.mkdirSync(path.join(dir, 'cache'), { recursive: true });
  const port = await freePort();
  proxy = await startNginx(
    nginx,
    dir,
    [
      `  proxy_cache_path ${path.join(dir, 'cache')} keys_zone=quire:1m;`,
      '  server {',
      `    listen 127.0.0.1:${port};`,
      '    location / {',
      `      proxy_pass http://127.0.0.1:${quire.match[1]};`,
      '      proxy_cache quire;',
      '      proxy_cache_key "$request_uri $http_authorization";',
      '      add_header X-Cache $upstream_cache_status always;',
      '    }',
      '  }',
    ].join('\n'),
    [port],
  );
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await quire?.stop();
  p?.cleanup();
});

const list = async (key: string) => {
  const res = await fetch(`${base}/v1/articles`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { articles: { slug: string }[] };
  return {
    cache: res.headers.get('x-cache'),
    cacheControl: res.headers.get('cache-control'),
    slugs: body.articles.map((a) => a.slug),
  };
};

describe('behind a shared cache', { timeout: 60_000 }, () => {
  it('a cached list does not outlive a go-live, and preview answers are never cached', async () => {
    const first = await list(keys.key);
    expect(first.slugs).toEqual(['now']);
    const second = await list(keys.key);
    expect(second).toMatchObject({ cache: 'HIT', slugs: ['now'] }); // nginx does cache public answers
    expect(Number(/max-age=(\d+)/.exec(second.cacheControl!)![1])).toBeLessThanOrEqual(
      Math.ceil((goLive - Date.now()) / 1000) + 1,
    );

    for (let i = 0; i < 2; i++) {
      const preview = await list(keys.previewKey);
      expect(preview.cache).not.toBe('HIT');
      expect(preview.slugs).toEqual(['soon', 'now', 'wip']);
    }

    // From the go-live, through the cache: at most a second or so late.
    await new Promise((r) => setTimeout(r, Math.max(0, goLive - Date.now())));
    let seen: number | null = null;
    while (seen === null && Date.now() < goLive + 5_000) {
      if ((await list(keys.key)).slugs.includes('soon')) seen = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen, 'the go-live never reached the client through the cache').not.toBeNull();
    expect(seen! - goLive).toBeLessThan(2_000);
  });
});
