// The public URL a server decides is the one it builds with and serves: with PORT=0 and no
// QUIRE_PUBLIC_URL, image URLs in the article HTML and JSON, the OpenAPI servers entry and
// llms.txt name the port the server was given, and the image is served there. A build made in
// another shell beside it takes that URL; one made for another URL is never served in silence.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PNG_BYTES } from '../api/fixture.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

describe('the public URL of a server started with PORT=0', () => {
  it('is the bound port, in image URLs of built HTML and JSON and in the API documents', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/images/cover.png', PNG_BYTES);
    p.write(
      'one/articles/pic.md',
      article(
        {
          title: 'Pic',
          status: 'published',
          image: 'cover.png',
          imageAlt: 'A cover',
          publishedAt: '2026-01-01',
          updatedAt: '2026-01-01',
        },
        'Look:\n\n![inline](../images/cover.png)\n',
      ),
    );
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

/** A site whose articles show one image (the same file in every build: its hashed name does not change). */
function projectWithImage(): TempProject {
  const proj = createTempProject();
  writeSite(proj, 'one');
  proj.write('one/images/cover.png', PNG_BYTES);
  proj.write('one/articles/pic.md', picture('Pic'));
  return proj;
}

const picture = (title: string) =>
  article({
    title,
    status: 'published',
    image: 'cover.png',
    imageAlt: 'A cover',
    publishedAt: '2026-01-01',
    updatedAt: '2026-01-01',
  });

async function serve(proj: TempProject) {
  const folders = { QUIRE_CONTENT_DIR: proj.contentDir, QUIRE_DIST_DIR: proj.distDir, QUIRE_STATE_DIR: proj.stateDir };
  const server = await startCli(['start'], { ...folders, PORT: '0' }, /Content API on (\S+)\/v1 [\s\S]*key: (\S+)\n/);
  const [, base, key] = server.match as unknown as [string, string, string];
  const get = (slug: string) => fetch(`${base}/v1/articles/${slug}`, { headers: { authorization: `Bearer ${key}` } });
  return { server, base, get, folders };
}

describe('a build beside a running server', () => {
  it("without QUIRE_PUBLIC_URL (and another PORT), is made for the server's public URL, says so, and is served", async () => {
    p = projectWithImage();
    const { server, base, get, folders } = await serve(p);
    try {
      p.write('one/articles/second.md', picture('Second'));
      const build = await runCli(['build'], { ...folders, PORT: '8787' });
      expect(build.code, build.stderr).toBe(0);
      await waitFor(async () => (await get('second')).status === 200, server.output);
      const second = (await (await get('second')).json()) as { imageUrl: string };
      expect(second.imageUrl.startsWith(`${base}/assets/one/`)).toBe(true);
      expect((await fetch(second.imageUrl)).status).toBe(200);
      expect(build.stderr).toMatch(
        new RegExp(`^Public URL: ${base}, the one of the server running on this dist/ \\(pid \\d+\\)`, 'm'),
      );
      expect(server.output()).not.toContain('BUILD_PUBLIC_URL_MISMATCH');
    } finally {
      await server.stop();
    }
  });

  it('made for another public URL (its own state dir, no QUIRE_PUBLIC_URL): not served; the server keeps its last good build and says why', async () => {
    p = projectWithImage();
    const { server, base, get, folders } = await serve(p);
    try {
      p.write('one/articles/second.md', picture('Second'));
      const elsewhere = { ...folders, QUIRE_STATE_DIR: path.join(p.root, 'other-state'), PORT: '8787' };
      const build = await runCli(['build'], elsewhere);
      expect(build.code, build.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8')).publicUrl).toBe(
        'http://localhost:8787',
      );
      await waitFor(() => server.output().includes('[BUILD_PUBLIC_URL_MISMATCH]'), server.output);
      expect(server.output()).toMatch(
        new RegExp(
          `dist/ now holds build \\S+, made for http://localhost:8787, not for this server's public URL ${base}: not served .*; the last good build stays served\\. To serve it, build with QUIRE_PUBLIC_URL=${base}`,
        ),
      );
      expect((await get('second')).status).toBe(404);
      const pic = (await (await get('pic')).json()) as { imageUrl: string };
      expect(pic.imageUrl.startsWith(`${base}/assets/one/`)).toBe(true);
      expect((await fetch(pic.imageUrl)).status).toBe(200);

      // Built with the server's state dir again: made for its URL, and served.
      expect((await runCli(['build'], folders)).code).toBe(0);
      await waitFor(async () => (await get('second')).status === 200, server.output);
    } finally {
      await server.stop();
    }
  });

  it('a server whose first build fails serves the last good build made for another URL, with a warning', async () => {
    p = projectWithImage();
    const folders = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir };
    expect((await runCli(['build'], { ...folders, PORT: '8787' })).code).toBe(0); // made for http://localhost:8787
    p.write('one/articles/broken.md', article({ title: 'Broken', status: 'maybe' }));
    const server = await startCli(['start'], { ...folders, PORT: '0' }, /Content API on (\S+)\/v1 /);
    try {
      expect(server.output()).toContain(
        `was made for http://localhost:8787, not for this server's public URL ${server.match[1]}: its image URLs lead there until a build of this server succeeds  [BUILD_PUBLIC_URL_MISMATCH]`,
      );
    } finally {
      await server.stop();
    }
  });
});
