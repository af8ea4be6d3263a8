// The Content API: GET /v1/articles, /v1/articles/{slug} and /v1/changes, keyed per site (key
// auth), served from pre-serialized bodies (prebuilt body: ETags, 304s, content codings), open to
// any origin (CORS); images, /openapi.json, /llms.txt and the service document beside them. Caching
// is one hour with strong ETags, shortened so that no cached answer outlives a scheduled go-live or
// expiry (src/snapshot/timed-view.ts). A preview key gets drafts and scheduled articles too, never
// cacheable. A keyed route is two steps Hono composes per request (key auth, then the answer),
// which costs a little more than a single handler would (docs/benchmarks-log.md, "figures first
// recorded in code comments"): the price of middleware that reads and tests alone. The API's routes
// go onto an app given to them (`addApiRoutes`: the server's root router, src/app/server-router.ts,
// and the edge's register them on themselves, so no handler is wrapped for another app's onError),
// or make an app of their own (`createApiApp`: tests and benches).
import { Hono, type Context } from 'hono';
import { hashBytes } from '../export/content-hash.ts';
import { contentTypeOf, hashInImageName, parseAssetPath } from '../export/layout.ts';
import { listBody } from '../export/list-body.ts';
import { MAX_SLUG_LENGTH, SLUG } from '../content/model.ts';
import type { KeyVerifier } from '../keys/api-keys.ts';
import { ApiError } from './api-error.ts';
import { answerChanges, type ChangeHistory } from './change-feed.ts';
import { createAnswerEncoder, type AnswerEncoder } from './answer-encoding.ts';
import type { Body, SnapshotReader } from '../snapshot/snapshot-reader.ts';
import { timedReader, type ExpiringBody, type ServedReader, type TimedSiteContent } from '../snapshot/timed-view.ts';
import { maxAgeUntil } from '../schedule/windows.ts';
import { PREVIEW_CACHE, publicCacheUntil } from './answer-cache.ts';
import { isPlainList, parseListQuery } from './list-query.ts';
import { API_VERSION, buildOpenApiDocument } from './openapi.ts';
import { buildLlmsTxt } from './llms-txt.ts';
import { API_ROUTES, SERVICE_ROUTES } from './routes.ts';
import { ANSWER_HEADERS, API_CORS, CORS, JSON_TYPE } from './answer-headers.ts';
import { answerProblems, noRoute } from './error-response.ts';
import { cors } from './middleware/cors.ts';
import { keyAuth, keyOf, refGrant, type KeyAuthEnv, type RefReaders } from './middleware/key-auth.ts';
import { refOf } from './request-ref.ts';
import { etagMatches, prebuiltBody } from './middleware/prebuilt-body.ts';

export interface ApiDeps {
  /** The build; served as it stands at each request's instant (timedReader). */
  store: SnapshotReader;
  /**
   * Where a request's build comes from when that differs per request (the edge Worker reads only
   * the site and article a request names); default `store`.
   */
  storeOf?: (c: Context) => SnapshotReader;
  /** The clock that decides what is live (default Date.now). */
  clock?: () => number;
  /** Checks keys: synchronously on Node; the edge's Web Crypto check may answer with a promise. */
  keyring: KeyVerifier;
  publicUrl: string;
  log?: (line: string) => void;
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
   * The branches previewed (`start --follow --previews`), read by preview keys that name one
   * (`?ref=`, `Quire-Ref`); absent or null: every ref is 404 REF_NOT_FOUND.
   */
  refs?: RefReaders | null;
}

/** Images, named by their content: cached for a year (shorter for those only expiring articles use). */
const IMAGE_MAX_AGE = 31_536_000;
const IMAGE_CACHE = `public, max-age=${IMAGE_MAX_AGE}, immutable`;
/** The change feed: an answer depends on the cursor and grows with every publish; a poll must reach the server. */
const FEED_HEADERS = {
  'content-type': JSON_TYPE,
  'cache-control': 'no-store',
  vary: 'Authorization',
  ...ANSWER_HEADERS,
};
/** How a keyed body is answered: its type, what it varies by besides its coding (the key), the shared headers. */
export const KEYED_BODY = { contentType: JSON_TYPE, varyAlso: ['Authorization'], headers: ANSWER_HEADERS } as const;

/** The API app on its own: its routes, its answer for no route, its onError. */
export function createApiApp(deps: ApiDeps): Hono {
  const app = new Hono();
  addApiRoutes(app, deps);
  app.notFound(noRoute);
  app.onError(answerProblems({ log: deps.log }));
  return app;
}

/** Registers the API's routes and its CORS preflight on `app` (which answers its refusals: `answerProblems`). */
export function addApiRoutes(app: Hono, deps: ApiDeps): void {
  const clock = deps.clock ?? Date.now;
  const store = timedReader(deps.store, clock);
  const storeOf = deps.storeOf;
  const served = storeOf ? (c: Context) => timedReader(storeOf(c), clock) : () => store;
  const encoder = deps.encoder ?? createAnswerEncoder();
  /** Cache-Control for an answer to the request's key that stays true until `until` (ms; null: nothing scheduled changes it). */
  const cacheUntil = (c: Context<KeyAuthEnv>, until: number | null) =>
    c.var.keyScope === 'preview' ? PREVIEW_CACHE : publicCacheUntil(until, clock());
  const auth = keyAuth({
    keyring: deps.keyring,
    reader: served,
    noteSite: deps.noteSite,
    log: deps.log,
    refs: deps.refs,
  });
  const body = { encoder, ...KEYED_BODY };

  app.get(
    API_ROUTES.articles,
    auth,
    prebuiltBody<KeyAuthEnv>({
      ...body,
      body: (c) => {
        const { site } = c.var;
        if (!c.req.url.includes('?') || !/[?&](limit|offset|kind|updatedSince)=/.test(c.req.url)) return site.list;
        const query = parseListQuery(new URL(c.req.url).searchParams);
        if (isPlainList(query)) return site.list;
        const { total, items } = site.filtered.select(query);
        const bytes = listBody(site.summary, items, total);
        return { bytes, etag: `"${hashBytes(bytes)}"` };
      },
      // A list changes at the site's next go-live or expiry.
      cacheControl: (c) => cacheUntil(c, (c.var.site as Partial<TimedSiteContent>).changesAt ?? null),
    }),
  );

  app.get(
    API_ROUTES.article,
    auth,
    prebuiltBody<KeyAuthEnv>({
      ...body,
      body: (c) => {
        const slug = c.req.param('slug') ?? '';
        return slug.length <= MAX_SLUG_LENGTH && SLUG.test(slug) ? c.var.site.articles.get(slug) : undefined;
      },
      // An article's answer changes only when it expires (a go-live of another changes its list).
      cacheControl: (c, article) => cacheUntil(c, (article as ExpiringBody).until ?? null),
    }),
    () => {
      throw new ApiError('ARTICLE_NOT_FOUND', `no published article with this slug`);
    },
  );

  app.get(API_ROUTES.changes, auth, async (c) => {
    if (c.var.keyScope === 'preview')
      throw new ApiError(
        'CHANGES_SITE_KEY_ONLY',
        'the change feed tells what is published: read it with the site key (pk_…), not the preview key',
      );
    if (!deps.changes)
      throw new ApiError(
        'CHANGES_UNAVAILABLE',
        'this server has no change history to read (its state store is not open); read the feed from the server that publishes',
      );
    const answer = await answerChanges(new URL(c.req.url).searchParams, c.var.site, deps.changes, clock());
    return new Response(answer, { status: 200, headers: FEED_HEADERS });
  });

  // Images need no key: those that articles live now use. The site's preview key also gets those
  // of its drafts and scheduled articles, uncached; without it they are not there (404). A branch's
  // images (`?ref=`) are its preview's: for the site's preview key only, as its articles are.
  app.get(API_ROUTES.asset, async (c) => {
    const asset = parseAssetPath(new URL(c.req.url).pathname);
    let store = served(c);
    let preview = false;
    const ref = refOf(c);
    if (ref !== null) {
      const key = keyOf(c);
      if (key === null)
        throw new ApiError('API_KEY_MISSING', "a branch's images are read with the site's preview key", {
          'www-authenticate': 'Bearer realm="quire"',
        });
      const branch = await refGrant(deps.keyring, deps.refs, store, key, ref);
      if (asset?.siteId !== branch.grant.siteId) throw new ApiError('ROUTE_NOT_FOUND', 'no such asset');
      store = branch.store;
      preview = true;
    } else preview = asset ? await isPreviewOf(c, store, asset.siteId) : false;
    const bytes = !asset
      ? null
      : preview
        ? await store.readPreviewImage(asset.siteId, asset.name)
        : await store.readImage(asset.siteId, asset.name);
    if (!asset || !bytes) throw new ApiError('ROUTE_NOT_FOUND', 'no such asset');
    const etag = `"${hashInImageName(asset.name) ?? hashBytes(bytes)}"`;
    // Named by its content, an image is cached for a year, unless only articles that expire use
    // it: then no longer than it is served (withdrawn with them, it must not outlive them in a cache).
    const until = (store.current()?.sites.get(asset.siteId) as Partial<TimedSiteContent> | undefined)?.imagesUntil?.get(
      asset.name,
    );
    const headers = {
      'content-type': contentTypeOf(asset.name),
      'cache-control': preview
        ? PREVIEW_CACHE
        : until === undefined
          ? IMAGE_CACHE
          : `public, max-age=${maxAgeUntil(until, clock(), IMAGE_MAX_AGE)}`,
      etag,
      vary: 'Authorization',
      ...ANSWER_HEADERS,
      // An uploaded SVG must not run script on this origin, which also serves the admin app.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    };
    if (etagMatches(c.req.header('if-none-match'), etag)) return new Response(null, { status: 304, headers });
    return new Response(bytes, { status: 200, headers });
  });

  /** Whether the request carries the preview key of `siteId` (any other key, or none: no). */
  async function isPreviewOf(c: Context, store: ServedReader, siteId: string): Promise<boolean> {
    const key = keyOf(c);
    const sites = store.current()?.sites;
    if (key === null || !sites) return false;
    const grant = await deps.keyring.grant(key, sites);
    return grant?.scope === 'preview' && grant.siteId === siteId;
  }

  const document = (made: Body, contentType: string) => prebuiltBody({ ...body, contentType, body: () => made });
  const openapi = document(textBody(JSON.stringify(buildOpenApiDocument(deps.publicUrl), null, 2)), JSON_TYPE);
  const llms = document(textBody(buildLlmsTxt(deps.publicUrl)), 'text/plain; charset=utf-8');
  for (const p of [API_ROUTES.openapi, API_ROUTES.openapiV1]) app.get(p, openapi);
  for (const p of [API_ROUTES.llms, API_ROUTES.llmsV1]) app.get(p, llms);

  app.get(SERVICE_ROUTES.root, (c) =>
    c.json(
      {
        name: 'Quire Content API',
        version: API_VERSION,
        openapi: `${deps.publicUrl}/openapi.json`,
        llms: `${deps.publicUrl}/llms.txt`,
      },
      200,
      CORS,
    ),
  );

  app.options('*', cors(API_CORS));
}

function textBody(text: string): Body {
  const bytes = new TextEncoder().encode(text);
  return { bytes, etag: `"${hashBytes(bytes)}"` };
}
