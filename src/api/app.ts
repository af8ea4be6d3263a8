// The Content API: GET /v1/articles, /v1/articles/{slug} and /v1/changes, keyed per site, served from
// pre-serialized bodies. Headers are set in the handlers (no middleware chain) to keep the
// node-server fast path; CORS is open, caching is one hour with strong ETags, shortened so that
// no cached answer outlives a scheduled go-live or expiry (src/snapshot/timed-view.ts). A preview
// key gets drafts and scheduled articles too, never cacheable.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { hashBytes } from '../export/content-hash.ts';
import { contentTypeOf, hashInImageName, parseAssetPath } from '../export/layout.ts';
import { listBody } from '../export/list-body.ts';
import { MAX_SLUG_LENGTH, SLUG } from '../content/model.ts';
import type { KeyGrant, KeyVerifier } from '../keys/api-keys.ts';
import { limitRequestBodies } from './body-limit.ts';
import { ApiError } from './api-error.ts';
import { answerChanges, type ChangeHistory } from './change-feed.ts';
import { BUSY, createAnswerEncoder, type AnswerEncoder, type Variant } from './answer-encoding.ts';
import type { Body, SnapshotReader, SiteContent } from '../snapshot/snapshot-reader.ts';
import { timedReader, type ExpiringBody, type ServedReader, type TimedSiteContent } from '../snapshot/timed-view.ts';
import { maxAgeUntil } from '../schedule/windows.ts';
import { isPlainList, parseListQuery } from './list-query.ts';
import { requestKey } from './request-key.ts';
import { API_VERSION, buildOpenApiDocument } from './openapi.ts';
import { buildLlmsTxt } from './llms-txt.ts';
import { API_ROUTES, isReadOnlyApiPath, SERVICE_ROUTES } from './routes.ts';
import { addHealthRoutes } from '../observe/health-routes.ts';
import type { Metrics } from '../observe/metrics.ts';
import { createReadiness, type Readiness } from '../observe/readiness.ts';

export interface ApiDeps {
  /** The build; served as it stands at each request's instant (timedReader). */
  store: SnapshotReader;
  /**
   * Where a request's build comes from when that differs per request (the edge Worker reads only
   * the site and article a request names); default `store`. Health routes read `store`.
   */
  storeOf?: (c: Context) => SnapshotReader;
  /** The clock that decides what is live (default Date.now). */
  clock?: () => number;
  /** Checks keys: synchronously on Node; the edge's Web Crypto check may answer with a promise. */
  keyring: KeyVerifier;
  publicUrl: string;
  log?: (line: string) => void;
  /**
   * Other apps served by the same server (the admin app under /admin), matched first. A mount's
   * `renderError` answers this app's refusals (a body over the cap) on its paths, in its own format.
   */
  mounts?: { path: string; app: Hono<any>; renderError?: (err: ApiError, c: Context) => Response | Promise<Response> }[];
  /** Cap on every request body read by any route, mounts included (default 1 MiB). */
  maxBodyBytes?: number;
  /** What GET /readyz answers (default: ready once a build is served). */
  readiness?: () => Readiness;
  /** Serves GET /metrics when given (QUIRE_METRICS=1); absent, /metrics is 404. */
  metrics?: Metrics | null;
  /** Told which site a request's key opened, for its log line. */
  noteSite?: (c: Context, siteId: string) => void;
  /**
   * The change log behind GET /v1/changes: the state store's, in the process that publishes.
   * Absent or null (the store cannot be read, or dist/ is served alone): 503 CHANGES_UNAVAILABLE.
   */
  changes?: ChangeHistory | null;
  /** Compresses bodies made at request time (default: createAnswerEncoder()). */
  encoder?: AnswerEncoder;
  /**
   * Runs before every route, mounts included: the Node server's Host check
   * (`src/server/host-check.ts`); none on the edge Worker, whose platform routes by host.
   */
  hostCheck?: MiddlewareHandler | null;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, WWW-Authenticate',
};
const JSON_TYPE = 'application/json; charset=utf-8';
const ALLOW = 'GET, HEAD, OPTIONS';

/** How long a public answer may be cached when nothing scheduled changes it sooner (spec: one hour). */
const MAX_AGE = 3600;
const PUBLIC_CACHE = `public, max-age=${MAX_AGE}`;
/** Answers to a preview key: drafts must never sit in a shared cache, nor in a browser's. */
const PREVIEW_CACHE = 'private, no-store';
/** Images, named by their content: cached for a year (shorter for those only expiring articles use). */
const IMAGE_MAX_AGE = 31_536_000;
const IMAGE_CACHE = `public, max-age=${IMAGE_MAX_AGE}, immutable`;
/** The change feed: an answer depends on the cursor and grows with every publish; a poll must reach the server. */
const FEED_CACHE = 'no-store';

const okHeaders = (etag: string, contentType = JSON_TYPE, cacheControl = PUBLIC_CACHE, vary = 'Authorization') => ({
  'content-type': contentType,
  'cache-control': cacheControl,
  etag,
  vary,
  'x-content-type-options': 'nosniff',
  ...CORS,
});
/** Answers with compressed variants (every body sendBody sends) differ by both. */
const BODY_VARY = 'Accept-Encoding, Authorization';

const FEED_HEADERS = { 'content-type': JSON_TYPE, 'cache-control': FEED_CACHE, vary: 'Authorization', 'x-content-type-options': 'nosniff', ...CORS };

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * `body` in the coding the request prefers among those it has (answer-encoding.ts), or 304 when
 * If-None-Match names the ETag of one the request accepts (a cache holding the gzip variant may
 * reuse it for a request that prefers br; never one the request refuses). A coding that cannot be
 * made now (busy) gives way to the next; when that leaves none, 503 COMPRESSION_BUSY: identity
 * would break the request's `identity;q=0`, and waiting would hold the request and its body for
 * as long as others keep the server busy.
 */
function sendBody(c: Context, encoder: AnswerEncoder, body: Body, contentType = JSON_TYPE, cacheControl = PUBLIC_CACHE): Response | Promise<Response> {
  const candidates = encoder.candidates(body, c.req.header('accept-encoding'));
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch) {
    const held = candidates.find((x) => etagMatches(ifNoneMatch, x.etag));
    if (held) return new Response(null, { status: 304, headers: okHeaders(held.etag, contentType, cacheControl, BODY_VARY) });
  }
  const answer = (i: number, busy: boolean): Response | Promise<Response> => {
    const chosen = candidates[i];
    if (!chosen && busy) {
      throw new ApiError('COMPRESSION_BUSY', 'the server is compressing as many answers as it allows; try again shortly, or accept identity', { 'retry-after': '1', vary: BODY_VARY });
    }
    if (!chosen) throw new ApiError('ENCODING_NOT_ACCEPTABLE', 'none of the content codings in Accept-Encoding is available; accept identity, br or gzip', { vary: BODY_VARY });
    const respond = (bytes: Variant): Response | Promise<Response> => {
      if (!(bytes instanceof Uint8Array)) return answer(i + 1, busy || bytes === BUSY);
      // Content-Length here, not left to the server: Hono answers HEAD with these headers and no body.
      const headers: Record<string, string> = { ...okHeaders(chosen.etag, contentType, cacheControl, BODY_VARY), 'content-length': String(bytes.byteLength) };
      if (chosen.coding !== 'identity') headers['content-encoding'] = chosen.coding;
      return new Response(bytes, { status: 200, headers });
    };
    const bytes = encoder.bytes(body, chosen.coding);
    return bytes instanceof Promise ? bytes.then(respond) : respond(bytes);
  };
  return answer(0, false);
}

/** A refusal in the one error shape, with the headers every error answer has. */
export function errorResponse(err: ApiError): Response {
  return new Response(err.body(), {
    status: err.status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...CORS, ...err.headers },
  });
}

const bearerOrQueryKey = (c: Context): string | null => requestKey(c.req.header('authorization'), () => c.req.query('key'));

/** What a request's key opened: the site as served now, and how answers from it may be cached. */
interface Opened {
  site: SiteContent;
  /** Cache-Control for an answer that stays true until `until` (ms; null: nothing scheduled changes it). */
  cacheUntil(until: number | null): string;
  /** The next instant the site's list changes (a go-live or an expiry), or null. */
  changesAt: number | null;
  /** Opened with the site's preview key. */
  preview: boolean;
}

export function createApiApp(deps: ApiDeps): Hono {
  const { keyring } = deps;
  const clock = deps.clock ?? Date.now;
  const store = timedReader(deps.store, clock);
  const storeOf = deps.storeOf;
  const served = storeOf ? (c: Context) => timedReader(storeOf(c), clock) : () => store;
  const log = deps.log ?? (() => {});
  const encoder = deps.encoder ?? createAnswerEncoder();
  const send = (c: Context, body: Body, contentType?: string, cacheControl?: string) => sendBody(c, encoder, body, contentType, cacheControl);
  const app = new Hono();
  const publicCache = (until: number | null) => (until === null ? PUBLIC_CACHE : `public, max-age=${maxAgeUntil(until, clock(), MAX_AGE)}`);

  /** Sync for a public key (the hot path takes no promise); a preview may have drafts to read first. */
  function open(c: Context): Opened | Promise<Opened> {
    const store = served(c);
    const snapshot = store.current();
    if (!snapshot) {
      throw new ApiError('CONTENT_UNAVAILABLE', 'no build is available yet; run `npm run build`', { 'retry-after': '5' });
    }
    const key = bearerOrQueryKey(c);
    if (key === null) {
      throw new ApiError('API_KEY_MISSING', 'send the site key as `Authorization: Bearer <key>` or `?key=<key>`', {
        'www-authenticate': 'Bearer realm="quire"',
      });
    }
    const grant = keyring.grant(key, snapshot.sites);
    return grant instanceof Promise ? grant.then((g) => granted(c, store, g, snapshot.sites)) : granted(c, store, grant, snapshot.sites);
  }

  function granted(c: Context, store: ServedReader, grant: KeyGrant | null, sites: ReadonlyMap<string, SiteContent>): Opened | Promise<Opened> {
    if (grant?.scope === 'preview') return previewOf(store, grant.siteId).then((site) => opened(c, site, true));
    return opened(c, grant === null ? undefined : sites.get(grant.siteId), false);
  }

  function opened(c: Context, site: SiteContent | null | undefined, preview: boolean): Opened {
    if (!site) {
      throw new ApiError('API_KEY_INVALID', 'the key is not valid for any site on this server', {
        'www-authenticate': 'Bearer realm="quire", error="invalid_token"',
      });
    }
    deps.noteSite?.(c, site.id);
    const changesAt = (site as Partial<TimedSiteContent>).changesAt ?? null;
    return { site, changesAt, preview, cacheUntil: preview ? () => PREVIEW_CACHE : publicCache };
  }

  async function previewOf(store: ServedReader, siteId: string): Promise<SiteContent | null> {
    try {
      return await store.preview(siteId);
    } catch (err) {
      // A build swapped in while its drafts were read: the next request reads the new one.
      log(`preview of ${siteId}: ${err instanceof Error ? err.message : String(err)}`);
      throw new ApiError('CONTENT_UNAVAILABLE', 'the build changed while this preview was read; try again', { 'retry-after': '1' });
    }
  }

  /** Whether the request carries the preview key of `siteId` (any other key, or none: no). */
  async function isPreviewOf(c: Context, store: ServedReader, siteId: string): Promise<boolean> {
    const key = bearerOrQueryKey(c);
    const sites = store.current()?.sites;
    if (key === null || !sites) return false;
    const grant = await keyring.grant(key, sites);
    return grant?.scope === 'preview' && grant.siteId === siteId;
  }

  // A middleware on every GET leaves the single-handler fast path (about 0.5 µs a request).
  if (deps.hostCheck) app.use('*', deps.hostCheck);
  limitRequestBodies(app, deps.maxBodyBytes);
  for (const mount of deps.mounts ?? []) app.route(mount.path, mount.app);

  const then = <T,>(value: Opened | Promise<Opened>, answer: (o: Opened) => T | Promise<T>): T | Promise<T> => (value instanceof Promise ? value.then(answer) : answer(value));

  app.get(API_ROUTES.articles, (c) => then(open(c), ({ site, cacheUntil, changesAt }) => {
    // A list changes at the site's next go-live or expiry.
    const cache = cacheUntil(changesAt);
    if (!c.req.url.includes('?') || !/[?&](limit|offset|kind|updatedSince)=/.test(c.req.url)) return send(c, site.list, JSON_TYPE, cache);
    const query = parseListQuery(new URL(c.req.url).searchParams);
    if (isPlainList(query)) return send(c, site.list, JSON_TYPE, cache);
    const { total, items } = site.filtered.select(query);
    const bytes = listBody(site.summary, items, total);
    return send(c, { bytes, etag: `"${hashBytes(bytes)}"` }, JSON_TYPE, cache);
  }));

  app.get(API_ROUTES.article, (c) => then(open(c), ({ site, cacheUntil }) => {
    const slug = c.req.param('slug');
    const body = slug.length <= MAX_SLUG_LENGTH && SLUG.test(slug) ? site.articles.get(slug) : undefined;
    if (!body) throw new ApiError('ARTICLE_NOT_FOUND', `no published article with this slug`);
    // An article's answer changes only when it expires (a go-live of another changes its list).
    return send(c, body, JSON_TYPE, cacheUntil((body as ExpiringBody).until ?? null));
  }));

  app.get(API_ROUTES.changes, (c) => then(open(c), async ({ site, preview }) => {
    if (preview) throw new ApiError('CHANGES_SITE_KEY_ONLY', 'the change feed tells what is published: read it with the site key (pk_…), not the preview key');
    if (!deps.changes) throw new ApiError('CHANGES_UNAVAILABLE', 'this server has no change history to read (its state store is not open); read the feed from the server that publishes');
    const body = await answerChanges(new URL(c.req.url).searchParams, site, deps.changes, clock());
    return new Response(body, { status: 200, headers: FEED_HEADERS });
  }));

  // Images need no key: those that articles live now use. The site's preview key also gets those
  // of its drafts and scheduled articles, uncached; without it they are not there (404).
  app.get(API_ROUTES.asset, async (c) => {
    const asset = parseAssetPath(new URL(c.req.url).pathname);
    const store = served(c);
    const preview = asset ? await isPreviewOf(c, store, asset.siteId) : false;
    const bytes = !asset ? null : preview ? await store.readPreviewImage(asset.siteId, asset.name) : await store.readImage(asset.siteId, asset.name);
    if (!asset || !bytes) throw new ApiError('ROUTE_NOT_FOUND', 'no such asset');
    const etag = `"${hashInImageName(asset.name) ?? hashBytes(bytes)}"`;
    // Named by its content, an image is cached for a year, unless only articles that expire use
    // it: then no longer than it is served (withdrawn with them, it must not outlive them in a cache).
    const until = (store.current()?.sites.get(asset.siteId) as Partial<TimedSiteContent> | undefined)?.imagesUntil?.get(asset.name);
    const headers = {
      ...okHeaders(etag, contentTypeOf(asset.name)),
      'cache-control': preview ? PREVIEW_CACHE : until === undefined ? IMAGE_CACHE : `public, max-age=${maxAgeUntil(until, clock(), IMAGE_MAX_AGE)}`,
      // An uploaded SVG must not run script on this origin, which also serves the admin app.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    };
    if (etagMatches(c.req.header('if-none-match'), etag)) return new Response(null, { status: 304, headers });
    return new Response(bytes, { status: 200, headers });
  });

  const openapi: Body = textBody(JSON.stringify(buildOpenApiDocument(deps.publicUrl), null, 2));
  const llms: Body = textBody(buildLlmsTxt(deps.publicUrl));
  for (const p of [API_ROUTES.openapi, API_ROUTES.openapiV1]) app.get(p, (c) => send(c, openapi));
  for (const p of [API_ROUTES.llms, API_ROUTES.llmsV1]) app.get(p, (c) => send(c, llms, 'text/plain; charset=utf-8'));

  app.get(SERVICE_ROUTES.root, (c) =>
    c.json({ name: 'Quire Content API', version: API_VERSION, openapi: `${deps.publicUrl}/openapi.json`, llms: `${deps.publicUrl}/llms.txt` }, 200, CORS),
  );
  addHealthRoutes(app, SERVICE_ROUTES, {
    readiness: deps.readiness ?? createReadiness({ buildServed: () => store.current() !== null }),
    metrics: deps.metrics ?? null,
  });

  app.options('*', () =>
    new Response(null, {
      status: 204,
      headers: {
        ...CORS,
        'access-control-allow-methods': ALLOW,
        'access-control-allow-headers': 'Authorization, Content-Type, If-None-Match',
        'access-control-max-age': '86400',
        allow: ALLOW,
      },
    }),
  );

  app.notFound((c) => {
    if (isReadOnlyApiPath(c.req.path)) {
      return errorResponse(new ApiError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed; this API is read-only`, { allow: ALLOW }));
    }
    return errorResponse(new ApiError('ROUTE_NOT_FOUND', `no route for ${c.req.path}; see /openapi.json`));
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      const mount = deps.mounts?.find((m) => m.renderError && (c.req.path === m.path || c.req.path.startsWith(`${m.path}/`)));
      return mount?.renderError ? mount.renderError(err, c) : errorResponse(err);
    }
    log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return errorResponse(new ApiError('INTERNAL_ERROR', 'the server failed to answer this request'));
  });
  return app;
}

function textBody(text: string): Body {
  const bytes = new TextEncoder().encode(text);
  return { bytes, etag: `"${hashBytes(bytes)}"` };
}
