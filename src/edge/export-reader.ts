// The export (src/export/object-export.ts) as the edge Worker reads it from a bucket binding: the
// pointer, re-read at most every `pointerTtlMs`; a build's document and each site's part and
// base content with its timed view (which articles are live now: made again only when the clock
// passes its next go-live or expiry, as on the Node server), kept per build id, site and part
// hash, bounded by count and bytes; object bytes, by their key (site and content hash), kept in
// a bounded cache of bytes (and, where given, the runtime's shared cache); an article body whose
// `related` the view cuts, made once per view, in a bounded cache of its own. A request gets a
// snapshot of one build holding only the site its key or path names and the one article body it
// asks for: no request loads a whole build.
import {
  assembleSite,
  imageKey,
  type Body,
  type SnapshotReader,
  type Snapshot,
  type EncodedVariants,
} from '../snapshot/snapshot-reader.ts';
import { servedAs, servedBody, timedReader, type ExpiringBody, type ServedReader } from '../snapshot/timed-view.ts';
import { isLiveAt } from '../schedule/windows.ts';
import { articleFile, encodedFile, listFile, listIndexFile } from '../export/layout.ts';
import { MANIFEST_FORMAT, type Manifest } from '../export/manifest.ts';
import {
  buildKey,
  objectKey,
  parseBuild,
  parsePointer,
  parseSite,
  POINTER_KEY,
  type ExportBuild,
  type ExportPointer,
  type ExportSite,
} from '../export/object-export.ts';
import { BoundedMap } from '../cache/bounded-map.ts';
import { createByteCache } from '../cache/byte-cache.ts';
import { createWeightedCache } from '../cache/weighted-cache.ts';
import { ProblemError } from '../problems/problem.ts';

/** What the Worker needs of an R2 bucket binding. */
export interface ExportBucket {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
}

/** A shared cache of immutable objects by URL (the Workers Cache API's `caches.default`). */
export interface ObjectCache {
  match(url: string): Promise<Response | undefined>;
  put(url: string, response: Response): Promise<void>;
}

export interface ExportReaderOptions {
  bucket: ExportBucket;
  /** QUIRE_S3_PREFIX as deployed ('' for none). */
  prefix: string;
  pointerTtlMs: number;
  clock: () => number;
  /** Bytes of objects kept in memory (default 32 MiB). */
  maxCachedBytes?: number;
  /** Bytes of article bodies made per view (`related` cut to live articles) kept in memory (default 16 MiB). */
  maxCachedCutBytes?: number;
  /** Sites (with their timed views) kept in memory: at most this many (default 256)… */
  maxCachedSites?: number;
  /** …and at most about this many bytes of their lists and indexes (default 64 MiB). */
  maxCachedSiteBytes?: number;
  objectCache?: ObjectCache | null;
}

/** What one request reads: the site its key or asset path names, the article its path names. */
export interface RequestNeeds {
  siteId: string | null;
  slug: string | null;
}

interface LoadedSite {
  part: ExportSite;
  /**
   * The build holding this one site (list, index and summary; no article bodies, added per
   * request) as served at the clock's now: made again only when the clock passes its validUntil.
   */
  served: ServedReader;
}

export class ExportUnreadableError extends ProblemError<'EXPORT_UNREADABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EXPORT_UNREADABLE', message, options);
    this.name = 'ExportUnreadableError';
  }
}

export interface ExportReader {
  /** The pointer as last read (at most `pointerTtlMs` old); null when nothing is deployed. */
  pointer(): Promise<ExportPointer | null>;
  /** The pointer read most recently, without reading (the key generations in force). */
  lastPointer(): ExportPointer | null;
  /** A reader of the pointed build holding what `needs` names. */
  readerFor(pointer: ExportPointer, needs: RequestNeeds): Promise<SnapshotReader>;
}

export function createExportReader(options: ExportReaderOptions): ExportReader {
  const { bucket, clock, pointerTtlMs } = options;
  const base = options.prefix ? `${options.prefix}/` : '';
  const objects = createByteCache(options.maxCachedBytes ?? 32 * 1024 * 1024);
  const builds = new BoundedMap<string, Promise<ExportBuild>>(4);
  const sites = createWeightedCache<Promise<LoadedSite>>(
    options.maxCachedSites ?? 256,
    options.maxCachedSiteBytes ?? 64 * 1024 * 1024,
  );
  // Bodies whose `related` the view cuts, made once per view (not per request: a parse and a write
  // of the whole body), by build, site, body and the view's instant.
  const cutBodies = createWeightedCache<ExpiringBody>(1024, options.maxCachedCutBytes ?? 16 * 1024 * 1024);
  let pointer: { value: ExportPointer | null; at: number; reading: Promise<ExportPointer | null> | null } = {
    value: null,
    at: -Infinity,
    reading: null,
  };

  async function read(key: string): Promise<Uint8Array> {
    const object = await bucket.get(base + key);
    if (!object)
      throw new ExportUnreadableError(`${base + key} is missing from the bucket: deploy again (quire deploy)`);
    return new Uint8Array(await object.arrayBuffer());
  }

  /** A site's object by hash: cached by its key, which names the site (no cache entry serves two sites). */
  async function object(siteId: string, hash: string): Promise<Uint8Array> {
    const key = objectKey(siteId, hash);
    const held = objects.get(key);
    if (held) return held;
    const url = `https://quire-export.invalid/${base}${key}`;
    const shared = await options.objectCache?.match(url);
    const bytes = shared ? new Uint8Array(await shared.arrayBuffer()) : await read(key);
    if (!shared && options.objectCache) {
      // Named by their content, objects never change: the shared cache may keep them for good.
      await options.objectCache.put(
        url,
        new Response(bytes.slice(), { headers: { 'cache-control': 'public, max-age=31536000, immutable' } }),
      );
    }
    objects.set(key, bytes);
    return bytes;
  }

  /** Memoized per key; a failure is forgotten so the next request tries again. */
  function once<T>(
    cache: Pick<BoundedMap<string, Promise<T>>, 'get' | 'set' | 'delete'>,
    key: string,
    load: () => Promise<T>,
  ): Promise<T> {
    let value = cache.get(key);
    if (!value) {
      value = load();
      value.catch(() => cache.delete(key));
      cache.set(key, value);
    }
    return value;
  }

  const buildOf = (buildId: string) =>
    once(builds, buildId, async () => parseBuild(await read(buildKey(buildId)), base + buildKey(buildId)));

  // Keyed by build too: the view's snapshot carries the build's id and manifest header. The site
  // id is in the key, so no view is ever served for another site's request.
  const siteOf = (build: ExportBuild, siteId: string, partHash: string) =>
    once(sites, `${build.buildId}:${siteId}:${partHash}`, async (): Promise<LoadedSite> => {
      const part = parseSite(await object(siteId, partHash), base + objectKey(siteId, partHash));
      const files = new Map<string, Uint8Array>();
      // The list and its index, and the list's stored compressed variants (sent as they are).
      const listKeys = [
        listFile(siteId),
        listIndexFile(siteId),
        ...(part.site.listEncodings ?? []).map((c) => encodedFile(listFile(siteId), c)),
      ].filter((k) => part.files[k] !== undefined);
      await Promise.all(listKeys.map(async (k) => files.set(k, await object(siteId, part.files[k]!))));
      const site = assembleSite(
        siteId,
        { ...part.site },
        {
          read: (key) => {
            const bytes = files.get(key);
            if (!bytes) throw new ExportUnreadableError(`the part of site "${siteId}" names no ${key}`);
            return bytes;
          },
          name: (key) => `${base}${objectKey(siteId, part.files[key] ?? '?')} (${key})`,
        },
        [],
      );
      sites.weigh(
        `${build.buildId}:${siteId}:${partHash}`,
        [...files.values()].reduce((n, b) => n + b.length, 0),
      );
      const manifest: Manifest = { ...manifestHeader(build), sites: { [siteId]: { ...part.site } } };
      const snapshot: Snapshot = { buildId: build.buildId, manifest, sites: new Map([[siteId, site]]) };
      const served = timedReader(
        { current: () => snapshot, readImage: async () => null, readDrafts: async () => new Map() },
        clock,
      );
      return { part, served };
    });

  return {
    lastPointer: () => pointer.value,
    async pointer() {
      if (clock() - pointer.at < pointerTtlMs) return pointer.value;
      pointer.reading ??= (async () => {
        try {
          const bytes = await bucket.get(base + POINTER_KEY);
          const value = bytes ? parsePointer(new Uint8Array(await bytes.arrayBuffer()), base + POINTER_KEY) : null;
          pointer = { value, at: clock(), reading: null };
          return value;
        } catch (err) {
          pointer.reading = null;
          throw err;
        }
      })();
      return pointer.reading;
    },
    async readerFor(p, needs) {
      const build = await buildOf(p.buildId);
      const siteId = needs.siteId;
      if (siteId === null || !Object.hasOwn(build.sites, siteId)) {
        // No site of this build named: a build without sites answers (401, 404, the documents).
        const snapshot: Snapshot = {
          buildId: build.buildId,
          manifest: { ...manifestHeader(build), sites: {} },
          sites: new Map(),
        };
        return {
          current: () => snapshot,
          readImage: async () => null,
          readDrafts: () => Promise.reject(new Error('drafts are not exported to the edge')),
        };
      }
      const { part, served } = await siteOf(build, siteId, build.sites[siteId]!);
      const view = served.current()!;
      const site = view.sites.get(siteId)!;
      // The one body the request names, as the view serves it at its instant (or not at all).
      const articles = new Map<string, Body>();
      const slug = needs.slug;
      const entry = slug !== null && Object.hasOwn(part.site.articles, slug) ? part.site.articles[slug]! : null;
      const bodyKey = entry ? articleFile(siteId, slug!) : null;
      const bodyHash = bodyKey ? part.files[bodyKey] : undefined;
      if (entry && bodyKey && bodyHash && isLiveAt(entry, view.at)) {
        const cutKey = `${build.buildId}:${siteId}:${bodyHash}:${view.at}`;
        let body = cutBodies.get(cutKey);
        if (!body) {
          const encoded: EncodedVariants = {};
          await Promise.all(
            (entry.encodings ?? []).map(async (c) => {
              const hash = part.files[encodedFile(bodyKey, c)];
              if (hash) encoded[c] = await object(siteId, hash);
            }),
          );
          const built = { bytes: await object(siteId, bodyHash), etag: `"${entry.bodyHash}"`, encoded };
          body = servedBody(built, entry, view.at, part.site.articles)!;
          if (body.bytes !== built.bytes) {
            cutBodies.set(cutKey, body);
            cutBodies.weigh(cutKey, body.bytes.length);
          }
        }
        articles.set(slug!, body);
      }
      const snapshot = { ...view, sites: new Map([[siteId, { ...site, articles }]]) };
      return servedAs(snapshot, {
        current: () => snapshot,
        async readImage(imageSite, name) {
          const key = imageKey(snapshot, imageSite, name);
          const hash = key && imageSite === siteId ? part.files[key] : undefined;
          return hash ? object(imageSite, hash) : null;
        },
        // Preview keys are refused at the edge (web-crypto-keyring.ts): drafts are never exported.
        readDrafts: () => Promise.reject(new Error('drafts are not exported to the edge')),
      });
    },
  };
}

const manifestHeader = (build: ExportBuild): Omit<Manifest, 'sites'> => ({
  format: MANIFEST_FORMAT,
  buildId: build.buildId,
  builtAt: build.builtAt,
  renderer: build.renderer,
  publicUrl: build.publicUrl,
  inputs: build.inputs,
});
