// The Content API's most common requests answered on Node's own request and response, before Hono
// builds a Request, a Context and a Response for them: GET /v1/articles and /v1/articles/{slug}
// with a site key in `Authorization: Bearer`, for a body the build stored in the coding the
// request prefers. Everything else (a query, a ref, a preview key, a refusal, a 406, a body
// compressed at request time, a host that is not answered, a trusted proxy's forwarded host) returns false and
// goes to the app as before. The answer is the app's own, byte for byte: the body, its ETag and
// Cache-Control come from the same snapshot and rules (answer-cache.ts, prebuilt-body.ts), and a
// test holds the two paths equal (test/server/fast-get.test.ts). Why: on the hot path the app
// spends per request what a bare server does not (docs/benchmarks.md, "The Content API").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { publicCacheUntil } from '../api/answer-cache.ts';
import type { AnswerEncoder } from '../api/answer-encoding.ts';
import { etagMatches, answerHeaders, bodyHeaders, type AnswerShape } from '../api/middleware/prebuilt-body.ts';
import { API_ROUTES } from '../api/routes.ts';
import { requestKey } from '../api/request-key.ts';
import { MAX_SLUG_LENGTH, SLUG } from '../content/model.ts';
import type { KeyVerifier } from '../keys/api-keys.ts';
import type { Body } from '../snapshot/snapshot-reader.ts';
import type { ExpiringBody, ServedReader, TimedSiteContent } from '../snapshot/timed-view.ts';

export interface FastGetDeps {
  /** The build as served at each instant (the same reader the app serves). */
  reader: ServedReader;
  keyring: KeyVerifier;
  /** The app's encoder: which codings a request accepts, and in which order. */
  encoder: AnswerEncoder;
  /** How the app answers a keyed body (KEYED_BODY in src/api/app.ts, as an AnswerShape). */
  shape: AnswerShape;
  /** Whether the request's host is answered here; false sends it to the app (which refuses it). */
  hostAllowed: (req: IncomingMessage) => boolean;
  clock?: () => number;
  /** Told which site a request's key opened (its log line). */
  noteSite?: (res: ServerResponse, siteId: string) => void;
}

/** The list's path, and the prefix of an article's (`/v1/articles/`). */
const LIST_PATH = API_ROUTES.articles;
const ARTICLE_PREFIX = `${LIST_PATH}/`;

/** Answers the request and returns true, or returns false without touching it. */
export function createFastGet(deps: FastGetDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { reader, keyring, encoder, shape, hostAllowed, noteSite } = deps;
  const clock = deps.clock ?? Date.now;

  /** The body a path names in `site`, or undefined (not one of these paths, or no such article). */
  function bodyOf(url: string, site: TimedSiteContent): { body: Body; until: number | null } | undefined {
    if (url === LIST_PATH) return { body: site.list, until: site.changesAt ?? null };
    const slug = url.slice(ARTICLE_PREFIX.length);
    const body = site.articles.get(slug) as ExpiringBody | undefined;
    return body && { body, until: body.until ?? null };
  }

  return function fastGet(req, res) {
    if (req.method !== 'GET') return false;
    const url = req.url ?? '';
    if (url !== LIST_PATH) {
      if (!url.startsWith(ARTICLE_PREFIX)) return false;
      const slug = url.slice(ARTICLE_PREFIX.length);
      if (slug.length === 0 || slug.length > MAX_SLUG_LENGTH || !SLUG.test(slug)) return false;
    }
    const authorization = req.headers.authorization;
    // A ref (Quire-Ref, or ?ref= which a query already sends on) names a branch's preview: the app's.
    if (!authorization || req.headers['quire-ref'] !== undefined) return false;
    const key = requestKey(authorization, () => undefined);
    if (key === null || !hostAllowed(req)) return false;
    const snapshot = reader.current();
    if (!snapshot) return false;
    const grant = keyring.grant(key, snapshot.sites);
    if (grant === null || grant instanceof Promise || grant.scope !== 'public') return false;
    const site = snapshot.sites.get(grant.siteId) as TimedSiteContent | undefined;
    if (!site) return false;
    const found = bodyOf(url, site);
    if (!found) return false;
    const { body, until } = found;
    const candidates = encoder.candidates(body, req.headers['accept-encoding']);
    const cache = publicCacheUntil(until, clock());
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch) {
      const held = candidates.find((x) => etagMatches(ifNoneMatch, x.etag));
      if (held) {
        noteSite?.(res, site.id);
        res.writeHead(304, answerHeaders(shape, held.etag, cache));
        res.end();
        return true;
      }
    }
    const chosen = candidates[0];
    if (!chosen) return false;
    // Only bytes the build stored: a variant made at request time has its own cap and answers (the app's).
    const bytes = chosen.coding === 'identity' ? body.bytes : body.encoded?.[chosen.coding];
    if (!bytes) return false;
    noteSite?.(res, site.id);
    res.writeHead(200, bodyHeaders(shape, chosen.etag, cache, bytes, chosen.coding));
    res.end(bytes);
    return true;
  };
}
