// `quire/astro`'s loader against a real Content API on loopback over a real build: it pages
// through every article (more than one page), stores each article whole with the contract's
// schema, and removes entries whose article is no longer published. The store and parseData
// here behave as Astro's do (a keyed store; parseData runs the collection's schema); a real
// `astro build` with it is the Astro example's test (test/examples/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quireLoader, type LoaderContext } from '../../src/astro/index.ts';
import { buildExport } from '../../src/compile/build.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let api: TestApi;

async function build(): Promise<void> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  api?.store.reload();
}

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  for (let i = 0; i < 120; i++) {
    const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    p.write(
      `one/articles/a-${i}.md`,
      article(
        { title: `Article ${i}`, status: 'published', author: 'ann', publishedAt: day, updatedAt: day },
        `Body *${i}*.\n`,
      ),
    );
  }
  await build();
  api = await startTestApi(p);
});

afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

function astroLikeContext(schema: ReturnType<typeof quireLoader>['schema']) {
  const entries = new Map<
    string,
    { id: string; data: Record<string, unknown>; digest?: string; rendered?: { html: string } }
  >();
  const logged: string[] = [];
  const context: LoaderContext = {
    store: {
      set: (entry) => (entries.set(entry.id, entry), true),
      keys: () => [...entries.keys()],
      delete: (id) => void entries.delete(id),
    },
    // Astro returns the parsed data; for data the schema accepts as it is, that is an equal object.
    parseData: async ({ data }) => (schema.parse(data), data),
    generateDigest: (data) => JSON.stringify(data).length.toString(36),
    logger: { info: (m) => void logged.push(m) },
  };
  return { context, entries, logged };
}

describe('quireLoader', () => {
  it('loads every article, whole, past the first page', async () => {
    const loader = quireLoader({ baseUrl: api.url, key: api.keyring.keyFor('one') });
    const { context, entries, logged } = astroLikeContext(loader.schema);
    await loader.load(context);
    expect(entries.size).toBe(120);
    const one = entries.get('a-7')!;
    const served = (await (
      await fetch(`${api.url}/v1/articles/a-7`, { headers: { authorization: `Bearer ${api.keyring.keyFor('one')}` } })
    ).json()) as Record<string, unknown>;
    expect(one.data).toEqual(served);
    expect(one.rendered).toEqual({ html: served.html });
    expect(one.data.author).toEqual({ name: 'Ann Example', bio: null, url: 'https://ann.example.org/' });
    expect(logged).toEqual(['120 articles from Quire']);
  });

  it('asks for articles a few at a time, never more than eight at once', async () => {
    let inFlight = 0;
    let most = 0;
    const counting: typeof fetch = async (input, init) => {
      most = Math.max(most, ++inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const loader = quireLoader({ baseUrl: api.url, key: api.keyring.keyFor('one'), fetch: counting });
    const { context, entries } = astroLikeContext(loader.schema);
    await loader.load(context);
    expect(entries.size).toBe(120);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('drops an entry whose article was withdrawn, on the next load', async () => {
    const loader = quireLoader({ baseUrl: api.url, key: api.keyring.keyFor('one') });
    const { context, entries } = astroLikeContext(loader.schema);
    await loader.load(context);
    p.write('one/articles/a-3.md', article({ title: 'Article 3', status: 'draft' }, 'Body.\n'));
    await build();
    await loader.load(context);
    expect(entries.has('a-3')).toBe(false);
    expect(entries.size).toBe(119);
  });

  it("fails loudly on a wrong key, with the API's code", async () => {
    const loader = quireLoader({ baseUrl: api.url, key: 'pk_one.nope' });
    await expect(loader.load(astroLikeContext(loader.schema).context)).rejects.toMatchObject({
      code: 'API_KEY_INVALID',
      status: 401,
    });
    expect(() => quireLoader({ baseUrl: '', key: 'k' })).toThrow(/needs \{baseUrl, key\}/);
  });
});
