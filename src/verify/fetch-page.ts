// Fetching pages for the checks: through the SSRF-safe client (every hop checked), redirects
// followed by hand up to a limit and recorded, size-capped, decoded by the declared charset.
import type { SafeClient } from '../net/safe-client.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';

export interface FetchedPage {
  ok: true;
  status: number;
  url: string;
  finalUrl: string;
  redirects: string[];
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  truncated: boolean;
}

export type FetchFailureCode = Extract<
  CodeIn<'verify'>,
  'FETCH_FAILED' | 'FETCH_TIMEOUT' | 'FETCH_REFUSED' | 'FETCH_BLOCKED' | 'FETCH_NOT_FOUND' | 'TOO_MANY_REDIRECTS'
>;

export type FetchFailure = { ok: false; status: number | null; redirects: string[] } & Problem<FetchFailureCode>;

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  accept?: string;
}

const MAX_HOPS = 5;

export async function fetchFollowing(
  client: SafeClient,
  url: string,
  opts: FetchOptions,
): Promise<FetchedPage | FetchFailure> {
  const redirects: string[] = [];
  let current = url;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const res = await client.request(current, {
      method: 'GET',
      headers: {
        accept: opts.accept ?? 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'user-agent': 'Quire-Verify/1.0 (+verify_integration)',
      },
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxBytes,
    });
    if (!res.ok)
      return {
        ok: false,
        code: res.kind === 'timeout' ? 'FETCH_TIMEOUT' : res.kind === 'non_public' ? 'FETCH_REFUSED' : 'FETCH_FAILED',
        message: `${current}: ${res.message}`,
        status: null,
        redirects,
      };
    const location = header(res.headers, 'location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, current).href;
      redirects.push(`${res.status} ${current} → ${next}`);
      current = next;
      continue;
    }
    if (res.status === 401 || res.status === 403 || res.status === 429) {
      return {
        ok: false,
        code: 'FETCH_BLOCKED',
        message: `${current} answered HTTP ${res.status} (a login wall or bot protection?)`,
        status: res.status,
        redirects,
      };
    }
    if (res.status >= 400)
      return {
        ok: false,
        code: res.status === 404 ? 'FETCH_NOT_FOUND' : 'FETCH_FAILED',
        message: `${current} answered HTTP ${res.status}`,
        status: res.status,
        redirects,
      };
    return {
      ok: true,
      status: res.status,
      url,
      finalUrl: current,
      redirects,
      headers: res.headers,
      body: res.body,
      truncated: res.truncated,
    };
  }
  return {
    ok: false,
    code: 'TOO_MANY_REDIRECTS',
    message: `more than ${MAX_HOPS} redirects from ${url}`,
    status: null,
    redirects,
  };
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Text by the Content-Type charset, else a <meta charset> in the first 1 KB, else UTF-8. */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const declared =
    contentType?.match(/charset=["']?([\w-]+)/i)?.[1] ??
    body
      .subarray(0, 1024)
      .toString('latin1')
      .match(/<meta[^>]+charset=["']?([\w-]+)/i)?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
