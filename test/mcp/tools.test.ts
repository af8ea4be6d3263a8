// The MCP tools through the SDK's own client (in-memory transport; stdio is covered end to end
// in test/e2e): shapes match the Content API, results come as structured content and text.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { buildExport } from '../../src/compile/build.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { buildMcpServer } from '../../src/mcp/build-mcp-server.ts';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { VERIFIED_SITE } from '../../src/net/target-policy.ts';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SERVER_SECRET = 's'.repeat(40);
let p: TempProject;
let store: StateStore;
let client: Client;
const keyring = createKeyring(SERVER_SECRET, { generationOf: () => 0 });

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/authors/ann.yaml', 'name: Ann\nurl: https://ann.example.org/\n');
  p.write(
    'one/articles/a.md',
    article(
      { title: 'A', status: 'published', author: 'ann', publishedAt: '2026-01-01', updatedAt: '2026-01-02' },
      'Text of *A*.\n',
    ),
  );
  p.write(
    'one/articles/b.md',
    article({ title: 'B', status: 'published', publishedAt: '2026-01-03', updatedAt: '2026-01-03' }),
  );
  const settings = {
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'https://content.example.com',
  };
  expect((await buildExport(settings)).ok).toBe(true);
  const dist = openLocalSnapshot(p.distDir, p.stateDir);
  dist.reload();
  store = openStateStore(p.stateDir, SERVER_SECRET);
  const server = buildMcpServer({
    snapshot: () => dist.current(),
    keyring,
    publicUrl: 'https://content.example.com',
    distDir: p.distDir,
    publishing: { store, client: createSafeClient(), now: Date.now, sleep: async () => {} },
    verifyClient: createSafeClient({ policy: VERIFIED_SITE }),
    version: '1.0.0',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await store?.close();
  p?.cleanup();
});

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: unknown;
    content: { text: string }[];
  };
  return { isError: r.isError, data: r.structuredContent as Record<string, any>, text: r.content[0]!.text };
};

describe('MCP tools', () => {
  it('declare zod-derived input and output schemas, and readOnlyHint where true', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['list_sites', 'get_api_key', 'list_articles', 'get_article', 'verify_integration']) {
      expect(byName[name]!.annotations?.readOnlyHint, name).toBe(true);
      expect(byName[name]!.outputSchema, name).toBeDefined();
    }
    expect(byName.test_webhook!.annotations?.readOnlyHint).toBe(false);
    expect(byName.check_conformance!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.check_conformance!.outputSchema).toBeDefined();
    expect(byName.check_conformance!.inputSchema.required).toEqual(['site']);
    expect(byName.verify_integration!.inputSchema.required).toEqual(['site']);
  });

  it('list_sites, get_api_key, list_articles and get_article answer like the API', async () => {
    const sites = await call('list_sites');
    expect(sites.data.sites).toEqual([
      {
        id: 'one',
        name: 'one',
        lang: 'en',
        url: 'https://one.example.com',
        articlePath: '/blog/{slug}',
        published: 2,
        webhook: null,
      },
    ]);
    expect(JSON.parse(sites.text)).toEqual(sites.data);

    const key = await call('get_api_key', { site: 'one' });
    expect(key.data).toMatchObject({
      site: 'one',
      apiBase: 'https://content.example.com/v1',
      key: keyring.keyFor('one'),
    });
    expect(keyring.verify(key.data.key, new Set(['one']))).toBe('one');

    const list = await call('list_articles', { site: 'one', limit: 1 });
    expect(list.data).toMatchObject({ site: { name: 'one', lang: 'en' }, total: 2 });
    expect(list.data.articles.map((a: { slug: string }) => a.slug)).toEqual(['b']);

    const a = await call('get_article', { site: 'one', slug: 'a' });
    expect(a.data).toMatchObject({
      slug: 'a',
      html: '<p>Text of <em>A</em>.</p>',
      author: { name: 'Ann', bio: null, url: 'https://ann.example.org/' },
    });
  });

  it('reports unknown sites and slugs as tool errors with the reason', async () => {
    const r = await call('get_article', { site: 'one', slug: 'nope' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/no published article "nope"/);
    const s = await call('verify_integration', { site: 'zzz' });
    expect(s.isError).toBe(true);
    expect(s.text).toMatch(/no site "zzz".*one/);
  });

  it('check_conformance says that no webhook is saved yet (nothing is sent), and names an unknown site', async () => {
    const r = await call('check_conformance', { site: 'one' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/no webhook is saved for one.*\[NO_WEBHOOK\]/);
    const s = await call('check_conformance', { site: 'zzz' });
    expect(s.isError).toBe(true);
    expect(s.text).toMatch(/no site "zzz"/);
  });

  it('test_webhook explains that no webhook is saved yet', async () => {
    const r = await call('test_webhook', { site: 'one' });
    expect(r.isError ?? false).toBe(false);
    expect(r.data).toMatchObject({ sent: false, ok: false, code: 'NO_WEBHOOK' });
  });
});
