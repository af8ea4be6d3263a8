// dist/manifest.json's format (src/export/manifest.ts): what is a manifest of this version, what
// is another version's (null: the next build writes dist/ anew), and what is damaged (a problem
// naming the file, never taken for "no build").
import { describe, expect, it } from 'vitest';
import { manifestJson, MANIFEST_FORMAT, parseManifest, type Manifest } from '../../src/export/manifest.ts';
import { ProblemError } from '../../src/problems/problem.ts';

const FILE = '/srv/site/dist/manifest.json';

const manifest: Manifest = {
  format: MANIFEST_FORMAT,
  buildId: 'build0123456789',
  builtAt: '2026-05-01T10:00:00.000Z',
  renderer: 'r1',
  publicUrl: 'https://api.example.com',
  inputs: 'inputs-hash',
  sites: {
    one: {
      name: 'One',
      lang: 'en',
      url: 'https://one.example.com',
      articlePath: '/blog/{slug}',
      listHash: 'list-hash',
      articles: {
        hello: {
          file: 'hello.md',
          sourceHash: 's',
          inputKey: 'k',
          bodyHash: 'b',
          payloadHash: 'p',
          kind: 'standard',
          publishedAt: '2026-05-01T00:00:00Z',
          updatedAt: null,
          images: [],
          related: ['other'],
        },
      },
      images: { 'images/a.png': 'a.h.png' },
    },
  },
  keyGenerations: { one: 2 },
};

/** The refusal parseManifest gives `text`: its code and message. */
function refusal(text: string): ProblemError {
  try {
    parseManifest(text, FILE);
  } catch (err) {
    if (err instanceof ProblemError) return err;
    throw err;
  }
  throw new Error(`accepted: ${text}`);
}

describe('the build manifest', () => {
  it('is one line of JSON that reads back as it was written', () => {
    const text = manifestJson(manifest);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(parseManifest(text, FILE)).toEqual(manifest);
  });

  it('of another format version is none (null): the next build writes every file anew', () => {
    for (const format of [MANIFEST_FORMAT - 1, MANIFEST_FORMAT + 1, 1]) {
      expect(parseManifest(JSON.stringify({ ...manifest, format }), FILE), `format ${format}`).toBeNull();
    }
  });

  it('that is not JSON is MANIFEST_UNREADABLE, naming the file and why', () => {
    for (const text of ['', '{"format":6,', 'not json at all']) {
      const err = refusal(text);
      expect(err.code).toBe('MANIFEST_UNREADABLE');
      expect(err.message).toContain(`${FILE} is not JSON (`);
    }
  });

  it('that is JSON but not a manifest of this version is MANIFEST_UNREADABLE, never "no build"', () => {
    const { buildId: _id, ...withoutBuildId } = manifest;
    const { sites: _sites, ...withoutSites } = manifest;
    const { format: _format, ...withoutFormat } = manifest;
    for (const data of [
      null,
      [],
      'manifest',
      6,
      {},
      withoutBuildId,
      withoutSites,
      withoutFormat,
      { ...manifest, format: String(MANIFEST_FORMAT) },
      { ...manifest, buildId: 7 },
      { ...manifest, sites: 'one' },
      { ...manifest, sites: null },
    ]) {
      const err = refusal(JSON.stringify(data));
      expect(err.code, JSON.stringify(data)).toBe('MANIFEST_UNREADABLE');
      expect(err.message).toContain(`${FILE} is not a build manifest`);
    }
  });
});
