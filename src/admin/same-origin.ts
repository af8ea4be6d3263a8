// Whether a form was posted from this app's own pages, and whether they are served over https.
// The origins the pages are served from: the one the request was sent to (as a trusted proxy
// reports it) and the public URL's (a proxy that forwards it as plain http).
import type { Context } from 'hono';
import type { TrustProxy } from '../config/trust-proxy.ts';
import { requestOrigin } from '../server/client-address.ts';

export interface SameOrigin {
  /** A page on another site sent this request. */
  crossSite(c: Context): boolean;
  /** This app's pages are served over https: its cookie is Secure. */
  secure(c: Context): boolean;
}

export function sameOrigin({
  publicUrl,
  trustProxy,
}: {
  publicUrl: () => string;
  trustProxy?: TrustProxy;
}): SameOrigin {
  const ownOrigins = (c: Context) => [requestOrigin(c, trustProxy), originOf(publicUrl())];
  return {
    crossSite: (c) => sentFromAnotherSite(c, ownOrigins(c)),
    secure: (c) => ownOrigins(c).some((o) => o?.startsWith('https:')),
  };
}

/** Browsers say where a request comes from; a page on another site may not post here. */
function sentFromAnotherSite(c: Context, ownOrigins: readonly (string | null)[]): boolean {
  const fetchSite = c.req.header('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = c.req.header('origin');
  return !!origin && origin !== 'null' && !ownOrigins.includes(origin);
}

/** The origin of a base URL; null before it is known (a server not yet listening). */
function originOf(base: string): string | null {
  try {
    return new URL(base).origin;
  } catch {
    return null;
  }
}
