// What a tree patched from the spare must lose: the files of the previous build that the next
// one no longer has, found by comparing the two manifests' sites, slugs, image names and
// compressed variants, so no path is built for what stays.
import {
  articleFile,
  articleFiles,
  encodedFile,
  imageFile,
  listFile,
  siteFiles,
  type ContentCoding,
} from '../layout.ts';
import type { Manifest } from '../manifest.ts';

/** The files of `previous`'s tree that `next`'s does not have. */
export function removedFiles(previous: Manifest, next: Manifest): string[] {
  const gone: string[] = [];
  for (const [id, site] of Object.entries(previous.sites)) {
    const now = Object.hasOwn(next.sites, id) ? next.sites[id]! : null;
    for (const [slug, entry] of Object.entries(site.articles)) {
      const kept = now && Object.hasOwn(now.articles, slug) ? now.articles[slug]! : null;
      if (!kept) gone.push(...articleFiles(id, slug, entry.encodings));
      else gone.push(...encodedGone(articleFile(id, slug), entry.encodings, kept.encodings));
    }
    const images = new Set(now ? Object.values(now.images) : []);
    for (const name of Object.values(site.images)) if (!images.has(name)) gone.push(imageFile(id, name));
    if (!now) gone.push(...siteFiles(id, site.listEncodings));
    else gone.push(...encodedGone(listFile(id), site.listEncodings, now.listEncodings));
  }
  return gone;
}

/** The compressed variants of `key` that a body had (`before`) and no longer has (`after`). */
function encodedGone(
  key: string,
  before: readonly ContentCoding[] = [],
  after: readonly ContentCoding[] = [],
): string[] {
  return before.filter((c) => !after.includes(c)).map((c) => encodedFile(key, c));
}
