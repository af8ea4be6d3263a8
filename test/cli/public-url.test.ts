// The public URL a server decides is the one it builds with and serves: with PORT=0 and no
// QUIRE_PUBLIC_URL, image URLs in the article HTML and JSON, the OpenAPI servers entry and
// llms.txt name the port the server was given, and the image is served there.
import { afterEach, describe, expect, it } from 'vitest';
import { PNG_BYTES } from '../api/fixture.ts';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

describe('the public URL of a server started with PORT=0', () => {
  it('is the bound port, in image URLs of built HTML and JSON and in the API documents', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/images/cover.png', PNG_BYTES);
    p.write('one/articles/pic.md', article({ title: 'Pic', status: 'published', image: 'cover.png', imageAlt: 'A cover', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }, 'Look:\n\n![inline](../images/cover.png)\n'));
    const env = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir, PORT: '0' };
    const server = await startCli(['start'], env, /Content API on (\S+)\/v1 [\s\S]*key: (\S+)\n/);
    try {
      const [, base, key] = server.match;
      expect(base).toMatch(/^http:\/\/localhost:[1-9]\d*$/);
      const get = (route: string) => fetch(`${base}${route}`, { headers: { authorization: `Bearer ${key}` } });

      const one = (await (await get('/v1/articles/pic')).json()) as { imageUrl: string; html: string };
      expect(one.imageUrl.startsWith(`${base}/assets/one/`)).toBe(true);
      const inline = [...one.html.matchAll(/<img[^>]* src="([^"]+)"/g)].map((m) => m[1]);
      expect(inline).toEqual([one.imageUrl]);
      const list = (await (await get('/v1/articles')).json()) as { articles: { imageUrl: string }[] };
      expect(list.articles.map((a) => a.imageUrl)).toEqual([one.imageUrl]);
      const image = await fetch(one.imageUrl);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG_BYTES);

      const openapi = (await (await get('/openapi.json')).json()) as { servers: { url: string }[] };
      expect(openapi.servers).toEqual([{ url: `${base}/v1` }]);
      expect(await (await get('/llms.txt')).text()).toContain(`(${base}/v1/articles)`);
    } finally {
      await server.stop();
    }
  });
});
