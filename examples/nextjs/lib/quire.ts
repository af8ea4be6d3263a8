// The Content API, read with quire/client through Next's fetch with cache tags: every page that
// reads an article is tagged with that article's tag, every page that reads the list with the
// list's tag, so the webhook route (app/api/quire/route.ts) can expire exactly what changed.
import { createClient, type QuireClient } from 'quire/client';

export const LIST_TAG = 'quire:articles';
export const articleTag = (slug: string) => `quire:article:${slug}`;

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
}

/** A client whose requests are cached by Next under `tags` until the webhook expires them. */
export function quire(tags: string[]): QuireClient {
  return createClient({
    baseUrl: setting('QUIRE_API_URL'),
    key: setting('QUIRE_KEY'),
    fetch: (input, init) => fetch(input, { ...init, cache: 'force-cache', next: { tags } }),
  });
}

/** This site's address, for canonical links and the webhook's `{url}` reply. */
export function siteUrl(path: string): string {
  return new URL(path, setting('SITE_URL')).href;
}

export const articlePath = (slug: string) => `/blog/${encodeURIComponent(slug)}`;
