// micromark's parser, as the patch tests drive it: micromark exports neither its parser nor its
// pre- and postprocessing, so they are loaded from the build in use (dev/ under the test
// runner's `development` condition), next to the entry point it resolves to; and the bench
// corpora's article bodies, which the tests parse both ways.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Event, ParseOptions } from 'micromark-util-types';
import { splitBody } from '../../src/content/parse-article.ts';
import { writeCorpus } from '../../scripts/bench/corpus.ts';

const entryDir = path.dirname(createRequire(import.meta.url).resolve('micromark'));
/** micromark's package directory, holding both builds. */
export const micromarkDir = path.basename(entryDir) === 'dev' ? path.dirname(entryDir) : entryDir;

/** A module of micromark's build in use, by its path under `lib/`. */
export const loadMicromark = async <T>(file: string) =>
  (await import(pathToFileURL(path.join(entryDir, 'lib', file)).href)) as T;

type Parse = (options?: ParseOptions) => { document: () => { write: (chunks: unknown[]) => Event[] } };
export const { parse } = await loadMicromark<{ parse: Parse }>('parse.js');
export const { postprocess } = await loadMicromark<{ postprocess: (events: Event[]) => Event[] }>('postprocess.js');
export const { preprocess } = await loadMicromark<{
  preprocess: () => (value: string, encoding: undefined, end: boolean) => unknown[];
}>('preprocess.js');

/** The article bodies of a bench corpus of `count` articles. */
export function corpusBodies(variant: 'standard' | 'dense', count: number): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-micromark-corpus-'));
  try {
    writeCorpus(dir, count, variant);
    const articles = path.join(dir, 'bench', 'articles');
    return fs
      .readdirSync(articles)
      .sort()
      .map((f) => splitBody(f, fs.readFileSync(path.join(articles, f))));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
