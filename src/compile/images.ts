// Images get content-hashed public names, so they can be cached forever; images that published
// articles use are copied to dist/<site>/images/ (served while one of them is live:
// src/snapshot/timed-view.ts), those only drafts use to the build's preview tree (src/export/preview-tree.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ImageFile } from '../content/load-content.ts';
import { assetUrl, imageName } from '../export/layout.ts';

export interface PublishedImage {
  sitePath: string;
  source: string;
  /** File name under dist/<site>/images/ (the part after `images/`, hashed). */
  distName: string;
  url: string;
}

/** Hashes by path+size+mtime, so unchanged images are not read again on a rebuild. */
export type ImageHashCache = Map<string, string>;

export function createImageResolver(
  siteId: string,
  images: Map<string, ImageFile>,
  publicUrl: string,
  hashCache: ImageHashCache,
) {
  const resolved = new Map<string, PublishedImage>();
  function resolve(sitePath: string): PublishedImage | undefined {
    const known = resolved.get(sitePath);
    if (known) return known;
    const img = images.get(sitePath);
    if (!img) return undefined;
    const cacheKey = `${img.file}\0${img.size}\0${img.mtimeMs}`;
    // One too large is never read: the build fails on its own problem and copies nothing.
    let hash = img.tooLarge ? 'too-large' : hashCache.get(cacheKey);
    if (!hash) {
      hash = createHash('sha256').update(fs.readFileSync(img.file)).digest('hex').slice(0, 16);
      hashCache.set(cacheKey, hash);
    }
    const distName = imageName(sitePath.slice('images/'.length), hash);
    const url = assetUrl(publicUrl, siteId, distName);
    const out = { sitePath, source: img.file, distName, url };
    resolved.set(sitePath, out);
    return out;
  }
  return { resolve, url: (sitePath: string) => resolve(sitePath)?.url };
}
