// `quire start` from a fresh state, on a content tree large enough for the build to collect
// garbage between render chunks (render-in-chunks.ts, collect-garbage.ts) while the store and the
// render cache hold SQLite statements: the process must build, serve and shut down cleanly. A
// native addon whose objects cannot be finalized by that collection aborts the process instead.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHUNK } from '../../src/compile/render-in-chunks.ts';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject | undefined;
afterEach(() => {
  p?.cleanup();
  p = undefined;
});

describe('a cold start', () => {
  it('builds past several forced collections, serves, and exits 0 on SIGTERM', async () => {
    p = createTempProject();
    writeSite(p, 'big');
    const count = 2 * CHUNK + 10; // a collection before the first chunk and between each two
    for (let i = 0; i < count; i++) {
      p.write(
        `big/articles/a${i}.md`,
        article(
          { title: `A ${i}`, status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' },
          `Text ${i} with **bold** and https://example.com/${i}.\n`,
        ),
      );
    }
    expect(fs.existsSync(p.stateDir)).toBe(false);
    const env = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir, PORT: '0' };
    const server = await startCli(['start'], env, /curl -H "Authorization: Bearer (\S+)" (\S+)\n/, 120_000);
    try {
      expect(server.output()).toMatch(
        new RegExp(`Built ${count} articles \\(${count} live, 0 drafts\\) .*${count} rendered`),
      );
      expect(fs.existsSync(path.join(p.stateDir, 'cache', 'render.db'))).toBe(true);
      const [, key, url] = server.match;
      const res = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total: number }).total).toBe(count);
    } finally {
      await server.stop(); // resolves once the process has closed
    }
    expect({ code: server.child.exitCode, signal: server.child.signalCode }, server.output()).toEqual({
      code: 0,
      signal: null,
    });
  }, 180_000);
});
