// Key auth for the Content API: the key a request carries (`Authorization: Bearer <key>`, or
// `?key=<key>`), verified, and scoped to the one site it opens, as served now: `c.var.site`,
// with `c.var.keyScope` ('preview' for the site's preview key, which also sees drafts and
// scheduled articles). Refused: 503 CONTENT_UNAVAILABLE while there is no build, 401
// API_KEY_MISSING and API_KEY_INVALID with a WWW-Authenticate challenge. A site key is checked
// without a promise on Node (the hot path); the edge's Web Crypto check answers with one.
// A request that names a branch (`?ref=`, `Quire-Ref`: request-ref.ts) reads that branch's preview
// instead, and only with a preview key: a site key is refused (403 REF_PREVIEW_KEY_ONLY) before
// the branch is looked up, so it learns nothing of which branches exist; a branch not previewed
// here is 404 REF_NOT_FOUND.
import type { Context, MiddlewareHandler } from 'hono';
import type { KeyGrant, KeyScope, KeyVerifier } from '../../keys/api-keys.ts';
import type { SiteContent } from '../../snapshot/snapshot-reader.ts';
import type { ServedReader } from '../../snapshot/timed-view.ts';
import { ApiError } from '../api-error.ts';
import { requestKey } from '../request-key.ts';
import { couldBeBranch, refOf } from '../request-ref.ts';

export type KeyAuthEnv = { Variables: { site: SiteContent; keyScope: KeyScope } };

/** The branches a server previews, each as served now (`start --follow --previews`). */
export interface RefReaders {
  /** The preview of branch `ref` (the followed branch's: the build served); null when there is none here. */
  reader(ref: string): ServedReader | null;
}

export interface KeyAuthOptions {
  keyring: KeyVerifier;
  /** The build a request reads, as served at its instant (the edge reads one per request). */
  reader: (c: Context) => ServedReader;
  /** Told which site a request's key opened (its log line). */
  noteSite?: (c: Context, siteId: string) => void;
  /** Where a preview that could not be read is told. */
  log?: (line: string) => void;
  /** The branch previews a ref reads; absent or null: none (every ref is REF_NOT_FOUND). */
  refs?: RefReaders | null;
  /** The realm named in the challenge. */
  realm?: string;
}

/**
 * The preview of the branch `ref` names, for the key it is asked with: the reader and the grant.
 * A site key is refused (REF_PREVIEW_KEY_ONLY) before the branch is looked up; a key for a site
 * only the branch has is checked against the branch's sites. Refused: API_KEY_INVALID,
 * REF_PREVIEW_KEY_ONLY for any key but a preview key, REF_NOT_FOUND.
 */
export async function refGrant(
  keyring: KeyVerifier,
  refs: RefReaders | null | undefined,
  served: ServedReader,
  key: string,
  ref: string,
  invalid: Record<string, string> = {},
): Promise<{ store: ServedReader; grant: KeyGrant }> {
  const previewOnly = () =>
    new ApiError(
      'REF_PREVIEW_KEY_ONLY',
      "a branch's preview is read with the site's preview key (pv_…), not the site key",
    );
  let grant = await keyring.grant(key, served.current()?.sites ?? new Map());
  if (grant && grant.scope !== 'preview') throw previewOnly();
  const store = couldBeBranch(ref) ? (refs?.reader(ref) ?? null) : null;
  const branchSites = store?.current()?.sites;
  if (!grant && branchSites) grant = await keyring.grant(key, branchSites);
  if (!grant) throw new ApiError('API_KEY_INVALID', 'the key is not valid for any site on this server', invalid);
  if (grant.scope !== 'preview') throw previewOnly();
  if (!store || !branchSites?.has(grant.siteId))
    throw new ApiError('REF_NOT_FOUND', 'no branch of this name is previewed here for this site');
  return { store, grant };
}

/** The key a request carries, as sent; null without one. */
export const keyOf = (c: Context): string | null => requestKey(c.req.header('authorization'), () => c.req.query('key'));

export const keyAuth = ({
  keyring,
  reader,
  noteSite,
  log = () => {},
  refs = null,
  realm = 'quire',
}: KeyAuthOptions): MiddlewareHandler<KeyAuthEnv> => {
  if (typeof keyring?.grant !== 'function') throw new TypeError('keyAuth: keyring must be a key verifier (grant)');
  if (typeof reader !== 'function') throw new TypeError('keyAuth: reader must give the served build of a request');
  if (!/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(realm))
    throw new TypeError(
      `keyAuth: the realm must be printable ASCII without quotes or backslashes, not ${JSON.stringify(realm)}`,
    );
  const missing = { 'www-authenticate': `Bearer realm="${realm}"` };
  const invalid = { 'www-authenticate': `Bearer realm="${realm}", error="invalid_token"` };

  function opened(
    c: Context<KeyAuthEnv>,
    next: () => Promise<void>,
    site: SiteContent | null | undefined,
    scope: KeyScope,
  ): Promise<void> {
    if (!site) throw new ApiError('API_KEY_INVALID', 'the key is not valid for any site on this server', invalid);
    noteSite?.(c, site.id);
    c.set('site', site);
    c.set('keyScope', scope);
    return next();
  }

  async function previewOf(store: ServedReader, siteId: string): Promise<SiteContent | null> {
    try {
      return await store.preview(siteId);
    } catch (err) {
      // A build swapped in while its drafts were read: the next request reads the new one.
      log(`preview of ${siteId}: ${err instanceof Error ? err.message : String(err)}`);
      throw new ApiError('CONTENT_UNAVAILABLE', 'the build changed while this preview was read; try again', {
        'retry-after': '1',
      });
    }
  }

  function granted(
    c: Context<KeyAuthEnv>,
    next: () => Promise<void>,
    store: ServedReader,
    grant: KeyGrant | null,
    sites: ReadonlyMap<string, SiteContent>,
  ): Promise<void> {
    if (grant?.scope === 'preview')
      return previewOf(store, grant.siteId).then((site) => opened(c, next, site, 'preview'));
    return opened(c, next, grant === null ? undefined : sites.get(grant.siteId), 'public');
  }

  async function branch(
    c: Context<KeyAuthEnv>,
    next: () => Promise<void>,
    served: ServedReader,
    key: string,
    ref: string,
  ) {
    const { store, grant } = await refGrant(keyring, refs, served, key, ref, invalid);
    const site = await previewOf(store, grant.siteId);
    if (!site) throw new ApiError('REF_NOT_FOUND', 'no branch of this name is previewed here for this site');
    return opened(c, next, site, 'preview');
  }

  return function keyAuth(c, next) {
    const store = reader(c);
    const snapshot = store.current();
    if (!snapshot)
      throw new ApiError('CONTENT_UNAVAILABLE', 'no build is available yet; run `npm run build`', {
        'retry-after': '5',
      });
    const key = keyOf(c);
    if (key === null)
      throw new ApiError(
        'API_KEY_MISSING',
        'send the site key as `Authorization: Bearer <key>` or `?key=<key>`',
        missing,
      );
    const ref = refOf(c);
    if (ref !== null) return branch(c, next, store, key, ref);
    const grant = keyring.grant(key, snapshot.sites);
    return grant instanceof Promise
      ? grant.then((g) => granted(c, next, store, g, snapshot.sites))
      : granted(c, next, store, grant, snapshot.sites);
  };
};
