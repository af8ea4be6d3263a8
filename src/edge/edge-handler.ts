// The Content API at the edge, assembled here: the same routes as the Node server's
// (src/api/app.ts) and its health checks, over the export in a bucket. Before the app runs, the
// request's needs are read from it (the site its key or asset path names, the article its path
// names) and only those objects are loaded; the app then answers exactly as on Node: same
// routes, bodies, ETags, 304s and headers. Keys are checked with Web Crypto against the
// generations of the deployed pointer.
import { Hono } from 'hono';
import { ApiError } from '../api/api-error.ts';
import { addApiRoutes } from '../api/app.ts';
import { answerProblems, errorResponse, noRoute } from '../api/error-response.ts';
import { requestKey } from '../api/request-key.ts';
import { decidePublicUrl } from '../config/public-url.ts';
import { SERVICE_ROUTES } from '../api/routes.ts';
import { addHealthRoutes } from '../observe/health-routes.ts';
import { createReadiness } from '../observe/readiness.ts';
import type { SnapshotReader, Snapshot } from '../snapshot/snapshot-reader.ts';
import { parseAssetPath } from '../export/layout.ts';
import { parseKey } from '../keys/key-shape.ts';
import { createExportReader, type ExportBucket, type ObjectCache, type RequestNeeds } from './export-reader.ts';
import { createWebCryptoKeyring } from './web-crypto-keyring.ts';

export interface EdgeSettings {
  bucket: ExportBucket;
  /** QUIRE_SECRET: the server secret keys are signed with. */
  secret: string;
  /** QUIRE_S3_PREFIX as deployed ('' for none). */
  prefix: string;
  /** The URL clients use (QUIRE_PUBLIC_URL); null: the one the build was made with. */
  publicUrl: string | null;
  /** How long the pointer read is trusted before it is read again. */
  pointerTtlMs: number;
  clock?: () => number;
  objectCache?: ObjectCache | null;
  log?: (line: string) => void;
}

const ARTICLE_PATH = /^\/v1\/articles\/([^/]+)$/;
const STORE = Symbol('quire-request-store');
type RequestEnv = { [STORE]: SnapshotReader };

/** The site and article a request names, read as the app will read them. */
export function requestNeeds(request: Request, url: URL): RequestNeeds {
  const key = requestKey(
    request.headers.get('authorization') ?? undefined,
    () => url.searchParams.get('key') ?? undefined,
  );
  const asset = parseAssetPath(url.pathname);
  const siteId = asset?.siteId ?? (key === null ? null : (parseKey(key)?.siteId ?? null));
  const m = ARTICLE_PATH.exec(url.pathname);
  let slug: string | null = null;
  if (m) {
    try {
      slug = decodeURIComponent(m[1]!);
    } catch {
      slug = null; // malformed encoding: the app answers it
    }
  }
  return { siteId, slug };
}

/**
 * The app's answer as the app made it: a body with a Content-Encoding is a variant the build
 * stored, already encoded, and one without is identity. The Workers runtime would otherwise
 * encode bodies itself by the request's Accept-Encoding (and mark even a 304 so), so the answer
 * would differ from the Node server's (`encodeBody: "manual"`).
 */
function sentAsIs(response: Response): Response {
  const init = {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    encodeBody: 'manual',
  };
  return new Response(response.body, init as ResponseInit);
}

export function createEdgeHandler(settings: EdgeSettings): { fetch(request: Request): Promise<Response> } {
  const clock = settings.clock ?? Date.now;
  const log = settings.log ?? (() => {});
  const reader = createExportReader({
    bucket: settings.bucket,
    prefix: settings.prefix,
    pointerTtlMs: settings.pointerTtlMs,
    clock,
    objectCache: settings.objectCache ?? null,
  });
  const keyring = createWebCryptoKeyring(settings.secret, {
    generationOf: (siteId) => reader.lastPointer()?.keyGenerations[siteId] ?? 1,
  });
  let latest: Snapshot | null = null;
  const noBuild: SnapshotReader = {
    current: () => null,
    readImage: async () => null,
    readDrafts: async () => new Map(),
  };
  let app: { url: string; app: Hono } | null = null;
  /** The edge's app: the API and the health checks (no metrics: the platform has its own). */
  const appFor = (publicUrl: string): Hono => {
    if (app?.url === publicUrl) return app.app;
    const root = new Hono();
    addApiRoutes(root, {
      store: { current: () => latest, readImage: async () => null, readDrafts: async () => new Map() },
      storeOf: (c) => (c.env as RequestEnv)[STORE],
      keyring,
      clock,
      publicUrl,
      log,
    });
    addHealthRoutes(root, SERVICE_ROUTES, {
      readiness: createReadiness({ buildServed: () => latest !== null }),
      metrics: null,
    });
    root.notFound(noRoute);
    root.onError(answerProblems({ log }));
    app = { url: publicUrl, app: root };
    return root;
  };

  return {
    async fetch(request) {
      const url = new URL(request.url);
      let store = noBuild;
      try {
        const pointer = await reader.pointer();
        if (pointer) {
          store = await reader.readerFor(pointer, requestNeeds(request, url));
          latest = store.current();
        }
      } catch (err) {
        // The bucket did not answer, or holds something that is not an export: nothing to serve now.
        log(`reading the export: ${err instanceof Error ? err.message : String(err)}`);
        return errorResponse(
          new ApiError('CONTENT_UNAVAILABLE', 'the content could not be read; try again', { 'retry-after': '5' }),
        );
      }
      const publicUrl = decidePublicUrl(settings.publicUrl, latest?.manifest.publicUrl ?? null, url.origin);
      return sentAsIs(await appFor(publicUrl).fetch(request, { [STORE]: store } satisfies RequestEnv));
    },
  };
}
