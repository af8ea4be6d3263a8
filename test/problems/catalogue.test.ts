// The problem catalogue is the one list of codes: every code in src/ is in it, every code in it
// is used, and the docs' tables and the OpenAPI error enum say the same as it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/openapi.ts';
import { verifySite } from '../../src/integration/verify-site.ts';
import { CATALOGUE, codesIn, isProblemCode, type CodeEntry, type ProblemCode } from '../../src/problems/catalogue.ts';
import { markedAreas, PROBLEM_TABLE_PAGES, problemTable, withProblemTables } from '../../src/problems/tables.ts';

const root = path.resolve(import.meta.dirname, '../..');
const CATALOGUE_FILE = path.join(root, 'src/problems/catalogue.ts');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mjs)$/.test(e.name) ? [full] : [];
  });
}

const sources = sourceFiles(path.join(root, 'src'))
  .filter((f) => f !== CATALOGUE_FILE)
  .map((file) => ({ file: path.relative(root, file), text: fs.readFileSync(file, 'utf8') }));

// Codes Quire reads but does not make: Node's errnos and error codes, SQLite's, OpenSSL's (by
// prefix), and setting names.
const FOREIGN = /^(E[A-Z]+|EAI_[A-Z]+|ERR_[A-Z_]+|SQLITE_[A-Z_]+|QUIRE_[A-Z_]+|NODE_[A-Z_]+|WHEN_[A-Z_]+)$/; // WHEN_…: the AWS SDK's checksum settings

describe('the problem catalogue', () => {
  it('has every code literal in src/ (other than foreign codes it reads)', () => {
    const uncatalogued: string[] = [];
    for (const { file, text } of sources) {
      for (const [, code] of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) {
        if (!isProblemCode(code!) && !FOREIGN.test(code!)) uncatalogued.push(`${file}: ${code}`);
      }
    }
    expect(uncatalogued).toEqual([]);
  });

  it('has no code that src/ does not use', () => {
    const all = sources.map((s) => s.text).join('\n');
    const unused = (Object.keys(CATALOGUE) as ProblemCode[]).filter((code) => !all.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it('gives every code a meaning and a fix, and every API code a status', () => {
    for (const [code, entry] of Object.entries(CATALOGUE)) {
      expect(entry.meaning, code).toMatch(/\S/);
      expect(entry.fix, code).toMatch(/\S/);
      expect('status' in entry, code).toBe(entry.area === 'api');
    }
  });

  it('has one meaning per code: no code is a bare NOT_FOUND of a delivery id', () => {
    // NOT_FOUND is the receiver's 404/405 (a delivery outcome); a delivery id that is not there
    // is DELIVERY_NOT_FOUND.
    expect(CATALOGUE.NOT_FOUND.area).toBe('delivery');
    expect(CATALOGUE.DELIVERY_NOT_FOUND.area).toBe('delivery-request');
  });
});

describe('what is made from the catalogue', () => {
  const pages = PROBLEM_TABLE_PAGES.map((page) => ({ page, text: fs.readFileSync(path.join(root, page), 'utf8') }));

  it("the docs' code tables are the catalogue's (npm run problems:tables writes them)", () => {
    // Every area's table is on exactly one of the pages.
    const marked = pages.flatMap((p) => markedAreas(p.text));
    expect([...marked].sort()).toEqual([...new Set(Object.values(CATALOGUE).map((e) => e.area))].sort());
    for (const p of pages) expect(p.text, p.page).toBe(withProblemTables(p.text));
    expect(pages.find((p) => p.page === 'docs/api.md')!.text).toContain(problemTable('api'));
  });

  it("the OpenAPI error code enum and its examples are the catalogue's API codes", () => {
    const doc = buildOpenApiDocument('https://api.example.com');
    const schema = doc.components.schemas.Error.properties.error.properties.code;
    expect([...schema.enum].sort()).toEqual([...codesIn('api')].sort());
    // Every example error response shows a catalogued API code with its status.
    const examples: { status: number; code: string }[] = [];
    JSON.stringify(doc, (key, value) => {
      if (key === 'example' && value?.error?.code) examples.push(value.error);
      return value;
    });
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) {
      expect(codesIn('api') as string[]).toContain(e.code);
      expect(e.status, e.code).toBe((CATALOGUE as Record<string, CodeEntry>)[e.code]?.status);
    }
  });
});

describe('problems returned as data', () => {
  it('a verify request that cannot be run says why with a code, like every other problem', async () => {
    const refused = await verifySite({ snapshot: null, outbox: {} as never, client: {} as never }, { siteId: 'nope' });
    expect(refused).toMatchObject({
      ok: false,
      code: 'SITE_NOT_BUILT',
      message: expect.stringContaining('no site "nope" in the build'),
    });
  });
});
