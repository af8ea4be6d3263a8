// dist/ on the local disk (src/export/export-files.ts), in real temp folders: the manifest read and
// written (none, another version's, damaged: a problem naming the file), and a list or body read
// against the hash the manifest gives it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashBytes } from '../../src/export/content-hash.ts';
import {
  fileIn,
  PayloadChangedError,
  readArticleBody,
  readListItems,
  readManifest,
  writeManifest,
} from '../../src/export/export-files.ts';
import { articleFile, listFile, MANIFEST_FILE } from '../../src/export/layout.ts';
import { listBody } from '../../src/export/list-body.ts';
import { MANIFEST_FORMAT, type Manifest } from '../../src/export/manifest.ts';
import { ProblemError } from '../../src/problems/problem.ts';

let dist: string;
beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-export-files-'));
});
afterEach(() => fs.rmSync(dist, { recursive: true, force: true }));

const manifest: Manifest = {
  format: MANIFEST_FORMAT,
  buildId: 'b1',
  builtAt: '2026-05-01T00:00:00Z',
  renderer: 'r',
  publicUrl: 'http://127.0.0.1',
  inputs: 'i',
  sites: {},
};
const put = (key: string, data: string | Uint8Array) => {
  fs.mkdirSync(path.dirname(fileIn(dist, key)), { recursive: true });
  fs.writeFileSync(fileIn(dist, key), data);
};

describe('the manifest on disk', () => {
  it('is none (null) before a build, and reads back what was written', () => {
    expect(readManifest(dist)).toBeNull();
    expect(readManifest(path.join(dist, 'not-there'))).toBeNull();
    writeManifest(dist, manifest);
    expect(fs.readFileSync(path.join(dist, MANIFEST_FILE), 'utf8')).toBe(`${JSON.stringify(manifest)}\n`);
    expect(readManifest(dist)).toEqual(manifest);
  });

  it('of another version is none (null)', () => {
    put(MANIFEST_FILE, JSON.stringify({ ...manifest, format: MANIFEST_FORMAT - 1 }));
    expect(readManifest(dist)).toBeNull();
  });

  it('damaged, or there but not readable as a file, is MANIFEST_UNREADABLE naming its path', () => {
    const file = path.join(dist, MANIFEST_FILE);
    for (const text of ['{"format":', '{"format":6}']) {
      fs.writeFileSync(file, text);
      expect(() => readManifest(dist)).toThrow(ProblemError);
      expect(() => readManifest(dist)).toThrow(file);
    }
    fs.rmSync(file);
    fs.mkdirSync(file); // a folder where the manifest belongs: EISDIR, not "no build"
    let error: unknown;
    try {
      readManifest(dist);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).code).toBe('MANIFEST_UNREADABLE');
    expect((error as ProblemError).message).toContain(`${file} cannot be read (EISDIR)`);
  });
});

describe("a site's list items on disk", () => {
  const body = listBody({ name: 'One', lang: 'en' }, [new TextEncoder().encode('{"slug":"a","title":"A"}')]);

  it('are none (null) for a site without a list, and cut from the list otherwise', () => {
    expect(readListItems(dist, 'one')).toBeNull();
    put(listFile('one'), body);
    expect([...readListItems(dist, 'one')!.keys()]).toEqual(['a']);
  });

  it('must be the list the manifest names when its hash is given', () => {
    put(listFile('one'), body);
    expect([...readListItems(dist, 'one', hashBytes(body))!.keys()]).toEqual(['a']);
    expect(() => readListItems(dist, 'one', hashBytes('another list'))).toThrow(PayloadChangedError);
    expect(() => readListItems(dist, 'one', hashBytes('another list'))).toThrow(
      `${fileIn(dist, listFile('one'))} does not match its hash in the manifest`,
    );
  });
});

describe('an article body on disk', () => {
  it('is read as text, and must be the body the manifest names when its hash is given', () => {
    const text = '{"slug":"a","html":"<p>Grüße</p>"}';
    put(articleFile('one', 'a'), text);
    expect(readArticleBody(dist, 'one', 'a')).toBe(text);
    expect(readArticleBody(dist, 'one', 'a', hashBytes(text))).toBe(text);
    const err = (() => {
      try {
        readArticleBody(dist, 'one', 'a', hashBytes('{"slug":"a"}'));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PayloadChangedError);
    expect((err as PayloadChangedError).file).toBe(fileIn(dist, articleFile('one', 'a')));
  });

  it('that is missing is an error, not an empty body', () => {
    expect(() => readArticleBody(dist, 'one', 'gone')).toThrow(/ENOENT/);
  });
});
