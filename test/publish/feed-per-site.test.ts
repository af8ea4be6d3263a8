// Change-feed positions are per site: what one site's key holder reads of GET /v1/changes (the
// answers, their cursors and the positions in them) stays the same whatever another site
// publishes, and counts its own site's changes only. A real API server over a real build and the
// test store (SQLite; PostgreSQL with QUIRE_TEST_STORE=postgres).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { decodeCursor, encodeCursor } from '../../src/api/change-cursor.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import type { RecordedChange, StateStore } from '../../src/store/state-store.ts';
import { buildTwoSites } from '../api/fixture.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { openTestStore } from '../helpers/test-store.ts';
import type { TempProject } from '../helpers/temp-content.ts';

const keyring = createKeyring(TEST_SECRET, { generationOf: () => 1 });
let p: TempProject;
let store: StateStore;
let server: RunningServer;
let url: string;
beforeAll(async () => {
  p = await buildTwoSites();
  store = openTestStore(p.stateDir, 'server-secret-0123456789abcdef0123456789');
  const dist = openLocalSnapshot(p.distDir, p.stateDir);
  dist.reload();
  server = await listen(
    createApiApp({ store: dist, keyring, publicUrl: 'http://127.0.0.1', changes: store.changes }),
    0,
    '127.0.0.1',
  );
  url = `http://127.0.0.1:${server.port}/v1/changes`;
});
afterAll(async () => {
  await server?.close();
  await store?.close();
  p?.cleanup();
});

const published = (slug: string, title = slug): RecordedChange => ({
  slug,
  state: 'published',
  payloadHash: `h-${slug}-${title}`,
  item: JSON.stringify({ slug, title }),
});
const withdrawn = (slug: string): RecordedChange => ({ slug, state: 'withdrawn', payloadHash: null, item: null });

/** The answer's text as the site's key holder gets it. */
async function feedText(site: string, query = ''): Promise<string> {
  const res = await fetch(`${url}${query}`, { headers: { authorization: `Bearer ${keyring.keyFor(site)}` } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
}
/** The answer's fields read here (its items are made up: the article shape is not what is tested). */
const feedOf = (text: string) =>
  JSON.parse(text) as { changes: { type: string; slug: string }[]; cursor: string; more: boolean };
const positionOf = (text: string) => decodeCursor(feedOf(text).cursor)!.position;

describe('change-feed positions per site', () => {
  it("another site's publishes change nothing a site's key holder reads; positions count the site's own changes", async () => {
    let at = 1000;
    const alpha = (...changes: RecordedChange[]) => store.published.record('alpha', null, changes, (at += 10));
    const beta = (...changes: RecordedChange[]) => store.published.record('beta', null, changes, (at += 10));
    const cursorOf = (text: string) => feedOf(text).cursor;

    await alpha(published('first-steps'), published('second-look'));
    await beta(published('bonjour'), published('salut'), published('coucou'));
    await alpha(published('first-steps', 'First steps, revised'));
    const state = await feedText('alpha');
    const caughtUp = await feedText('alpha', `?since=${cursorOf(state)}`);
    // Three changes of alpha's, with beta's between them: alpha's cursor stands at 3.
    expect(positionOf(state)).toBe(3);

    // Beta publishes, withdraws, publishes again: alpha's answers stay the same, byte for byte.
    await beta(withdrawn('salut'));
    await beta(published('salut', 'Salut encore'), published('neuf'));
    for (let i = 0; i < 5; i++) await beta(published('bonjour', `Bonjour ${i}`));
    expect(await feedText('alpha')).toBe(state);
    expect(await feedText('alpha', `?since=${cursorOf(state)}`)).toBe(caughtUp);

    // Alpha's next change is its position 4, whatever beta did meanwhile.
    await alpha(withdrawn('second-look'));
    const next = await feedText('alpha', `?since=${cursorOf(state)}`);
    expect(feedOf(next).changes.map((c) => `${c.type}:${c.slug}`)).toEqual(['withdrawn:second-look']);
    expect(positionOf(next)).toBe(4);
    expect(positionOf(await feedText('alpha'))).toBe(4);

    // Page by page from the start of alpha's history: one position a change, no gaps.
    let cursor = encodeCursor({ storeId: await store.changes.storeId(), siteId: 'alpha', position: 0 });
    const positions: number[] = [];
    for (let more = true; more; ) {
      const page = feedOf(await feedText('alpha', `?since=${cursor}&limit=1`));
      if (page.changes.length) positions.push(decodeCursor(page.cursor)!.position);
      ({ cursor, more } = page);
    }
    expect(positions).toEqual([1, 2, 3, 4]);
    // Beta's position counts beta's changes only, too.
    expect(positionOf(await feedText('beta'))).toBe(3 + 1 + 2 + 5);
  });
});
