// The export in object storage (src/export/object-export.ts): the keys it is spelled with, its
// documents as one line of JSON, and the refusal of a document that is not one of this version
// (naming its key), so that neither deploy nor the Worker acts on a damaged pointer.
import { describe, expect, it } from 'vitest';
import type { ManifestSite } from '../../src/export/manifest.ts';
import {
  buildKey,
  EXPORT_FORMAT,
  ExportFormatError,
  exportJson,
  objectKey,
  parseBuild,
  parsePointer,
  parseSite,
  POINTER_KEY,
  type ExportBuild,
  type ExportPointer,
  type ExportSite,
} from '../../src/export/object-export.ts';

const encoder = new TextEncoder();
const bytes = (data: unknown) => encoder.encode(JSON.stringify(data));

const pointer: ExportPointer = {
  format: EXPORT_FORMAT,
  buildId: 'b2',
  deployedAt: '2026-05-01T10:00:00Z',
  keyGenerations: { one: 2, 'one.preview': 3 },
  retired: { b1: '2026-05-01T09:00:00Z' },
};
const build: ExportBuild = {
  format: EXPORT_FORMAT,
  buildId: 'b2',
  builtAt: '2026-05-01T09:59:00Z',
  renderer: 'r',
  publicUrl: 'https://api.example.com',
  inputs: 'i',
  sites: { one: 'part-hash' },
};
const manifestSite: ManifestSite = {
  name: 'One',
  lang: 'en',
  url: 'https://one.example.com',
  articlePath: '/{slug}',
  listHash: 'lh',
  articles: {},
  images: {},
};
const site: ExportSite = { site: manifestSite, files: { 'one/articles.json': 'h1', 'one/articles.index.json': 'h2' } };

describe('the keys of the export', () => {
  it('put objects under their site, builds under builds/, and the pointer at current.json', () => {
    expect(objectKey('one', 'abc')).toBe('objects/one/abc');
    expect(objectKey('two', 'abc')).not.toBe(objectKey('one', 'abc')); // never shared by two sites
    expect(buildKey('b2')).toBe('builds/b2.json');
    expect(POINTER_KEY).toBe('current.json');
  });
});

describe('the export documents', () => {
  it('are one line of JSON each, read back as written', () => {
    for (const doc of [pointer, build, site]) {
      const text = new TextDecoder().decode(exportJson(doc));
      expect(text.endsWith('}\n')).toBe(true);
      expect(text.slice(0, -1)).not.toContain('\n');
    }
    expect(parsePointer(exportJson(pointer))).toEqual(pointer);
    expect(parseBuild(exportJson(build), buildKey('b2'))).toEqual(build);
    expect(parseSite(exportJson(site), objectKey('one', 'part-hash'))).toEqual(site);
  });

  it('that are not JSON objects are refused, naming the key', () => {
    for (const data of [encoder.encode('{"format":'), bytes(null), bytes([pointer]), bytes('current')]) {
      expect(() => parsePointer(data)).toThrow(ExportFormatError);
      expect(() => parsePointer(data)).toThrow(/^current\.json is not a Quire export document/);
      expect(() => parseBuild(data, 'builds/x.json')).toThrow(/^builds\/x\.json is not a Quire export document/);
      expect(() => parseSite(data, 'objects/one/x')).toThrow(/^objects\/one\/x is not a Quire export document/);
    }
  });

  it('a pointer of another format or shape is refused: a Worker never serves from it', () => {
    const refused: [unknown, RegExp][] = [
      [{ ...pointer, format: EXPORT_FORMAT + 1 }, /format 2, this version reads 1/],
      [{ ...pointer, format: undefined }, /format undefined, this version reads 1/],
      [{ ...pointer, buildId: undefined }, /no buildId or deployedAt/],
      [{ ...pointer, deployedAt: 5 }, /no buildId or deployedAt/],
      [{ ...pointer, keyGenerations: { one: 0 } }, /keyGenerations is not site → whole number/],
      [{ ...pointer, keyGenerations: { one: 1.5 } }, /keyGenerations/],
      [{ ...pointer, keyGenerations: { one: '2' } }, /keyGenerations/],
      [{ ...pointer, keyGenerations: [2] }, /keyGenerations/],
      [{ ...pointer, retired: { b1: 1 } }, /retired is not build id → time/],
      [{ ...pointer, retired: undefined }, /retired/],
    ];
    for (const [data, why] of refused) expect(() => parsePointer(bytes(data)), JSON.stringify(data)).toThrow(why);
  });

  it('a build document of another format or shape is refused', () => {
    const refused: [unknown, RegExp][] = [
      [{ ...build, format: 0 }, /format 0/],
      [{ ...build, buildId: 1 }, /no buildId or publicUrl/],
      [{ ...build, publicUrl: undefined }, /no buildId or publicUrl/],
      [{ ...build, sites: { one: 1 } }, /sites is not site → hash/],
      [{ ...build, sites: ['part-hash'] }, /sites is not site → hash/],
    ];
    for (const [data, why] of refused)
      expect(() => parseBuild(bytes(data), 'builds/b2.json'), JSON.stringify(data)).toThrow(why);
  });

  it('a site part without its manifest entry or file hashes is refused', () => {
    const refused: [unknown, RegExp][] = [
      [{ files: site.files }, /no site entry/],
      [{ ...site, site: { ...manifestSite, listHash: 1 } }, /no site entry/],
      [{ ...site, site: { ...manifestSite, articles: undefined } }, /no site entry/],
      [{ ...site, files: { 'one/articles.json': 7 } }, /files is not key → hash/],
      [{ site: manifestSite }, /files is not key → hash/],
    ];
    for (const [data, why] of refused)
      expect(() => parseSite(bytes(data), 'objects/one/p'), JSON.stringify(data)).toThrow(why);
  });
});
