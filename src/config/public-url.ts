// Where clients reach the Content API. Image URLs in built HTML, the OpenAPI `servers` entry, the
// web app's API base and the MCP tools' answers all name it, so a process decides it once, by
// one rule wherever Quire runs: the Node process (src/app/app.ts) and the edge Worker
// (src/edge/). No Node-only imports: the Worker's bundle reads this too.

/** A base URL checked: without trailing slashes, or what is wrong with it. */
export type BaseUrl = { ok: true; url: string } | { ok: false; problem: string };

/** QUIRE_PUBLIC_URL (or another base URL setting) as given: an absolute http(s) URL without query or fragment. */
export function checkBaseUrl(value: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, problem: 'must be an absolute URL such as https://api.example.com' };
  }
  if (!/^https?:$/.test(url.protocol)) return { ok: false, problem: 'must use http or https' };
  if (url.search || url.hash) return { ok: false, problem: 'must not have a query or fragment' };
  return { ok: true, url: value.replace(/\/+$/, '') };
}

/**
 * The public URL: QUIRE_PUBLIC_URL when set (`configured`); otherwise the one the build served
 * was made for (`builtFor`: in the Node process that serves nothing, the running server's, from
 * its record in the state dir, so a build made beside it is made for it; at the edge, the one in
 * the build's manifest); otherwise where this process is reached (`reachedAt`: the Node server's
 * loopback name with the port it listens on, or the configured PORT; at the edge, the request's
 * origin).
 */
export function decidePublicUrl(configured: string | null, builtFor: string | null, reachedAt: string): string {
  return configured ?? builtFor ?? reachedAt;
}
