// The contract is written once (src/contract/, zod) and /openapi.json serves it: the checked-in
// JSON Schema copy is what zod generates now, a real server serves exactly that, and what the
// server answers parses with the zod schemas. `UPDATE_CONTRACT=1` rewrites the copy.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArticleListSchema, ArticleSchema } from '../../src/contract/article.ts';
import { ErrorResponseSchema } from '../../src/contract/error.ts';
import { generateComponentSchemas } from '../../src/contract/json-schemas.ts';
import { buildTwoSites } from '../api/fixture.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import type { TempProject } from '../helpers/temp-content.ts';

const COPY = path.resolve(import.meta.dirname, '../../src/contract/openapi-schemas.json');
const UPDATE = process.env.UPDATE_CONTRACT === '1';

let project: TempProject;
let api: TestApi;
beforeAll(async () => {
  project = await buildTwoSites();
  api = await startTestApi(project);
});
afterAll(async () => {
  await api?.close();
  project?.cleanup();
});

describe('the contract in /openapi.json', () => {
  it('the checked-in JSON Schema is what the zod contract generates', () => {
    const generated = `${JSON.stringify(generateComponentSchemas(), null, 2)}\n`;
    if (UPDATE) fs.writeFileSync(COPY, generated);
    expect(
      fs.readFileSync(COPY, 'utf8'),
      `${path.basename(COPY)} is stale: run UPDATE_CONTRACT=1 npx vitest run ${path.relative(process.cwd(), import.meta.filename)}`,
    ).toBe(generated);
  });

  it('a running server serves exactly the generated component schemas', async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { components: { schemas: unknown } };
    expect(doc.components.schemas).toEqual(generateComponentSchemas());
  });

  it('what the server answers parses with the zod contract', async () => {
    const key = api.keyring.keyFor('alpha');
    const get = async (p: string, auth = true) =>
      (await fetch(`${api.url}${p}`, { headers: auth ? { authorization: `Bearer ${key}` } : {} })).json();
    const list = ArticleListSchema.parse(await get('/v1/articles'));
    expect(list.total).toBeGreaterThan(0);
    for (const item of list.articles) ArticleSchema.parse(await get(`/v1/articles/${item.slug}`));
    expect(ArticleSchema.parse(await get('/v1/articles/first-steps')).author).toMatchObject({ name: 'Ada Lovelace' });
    expect(ErrorResponseSchema.parse(await get('/v1/articles/no-such-article')).error.code).toBe('ARTICLE_NOT_FOUND');
    expect(ErrorResponseSchema.parse(await get('/v1/articles', false)).error.code).toBe('API_KEY_MISSING');
    // The contract can fail: a field the spec does not have is refused.
    expect(ArticleListSchema.safeParse({ ...list, extra: 1 }).success).toBe(false);
  });
});
