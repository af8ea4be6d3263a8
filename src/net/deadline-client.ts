// A client whose requests all end by one deadline: each request's time-out is cut to what is
// left, and one asked for after it fails at once as a time-out. Bounds a job that makes several
// requests one after another (a page check reads robots.txt, sitemaps and the page) to a time
// budget, however many requests it makes.
import type { RequestOptions, SafeClient } from './safe-client.ts';

const DEFAULT_TIMEOUT_MS = 10_000;

export function clientWithDeadline(client: SafeClient, deadline: number, now: () => number = Date.now): SafeClient {
  return {
    async request(url, opts: RequestOptions = {}) {
      const left = deadline - now();
      if (left <= 0)
        return { ok: false, kind: 'timeout', message: 'the time budget of this check ran out', durationMs: 0 };
      return client.request(url, { ...opts, timeoutMs: Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, left) });
    },
    resolvePublic: (host) => client.resolvePublic(host),
    // The client is the caller's, shared: closing it is theirs too.
    close: () => undefined,
  };
}
