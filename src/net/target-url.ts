// The first check of an outbound URL, before any DNS: https (http too where the policy allows it),
// no credentials, and not a host that names a non-public place outright (an IP literal in a
// private range, localhost, *.internal…).
// The address check proper runs again where the socket connects (guarded-lookup.ts).
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { checkHost } from './host-policy.ts';
import { WEBHOOK_TARGETS, type TargetPolicy } from './target-policy.ts';

export type TargetErrorCode = Extract<
  CodeIn<'webhook-input'>,
  'URL_INVALID' | 'URL_NOT_HTTPS' | 'URL_HAS_CREDENTIALS' | 'URL_HOST_NOT_PUBLIC'
>;

export type TargetCheck = { ok: true; url: URL } | ({ ok: false } & Problem<TargetErrorCode>);

/**
 * Each refusal's name where it is data rather than a problem: an exchange's failure `kind` and a
 * stored attempt's error kind (attempts recorded by every release hold these names). One name
 * per code, read both ways: nothing else relates the two.
 */
export const REFUSAL_KINDS = {
  URL_INVALID: 'url_invalid',
  URL_NOT_HTTPS: 'not_https',
  URL_HAS_CREDENTIALS: 'credentials',
  URL_HOST_NOT_PUBLIC: 'non_public',
} as const satisfies Record<TargetErrorCode, string>;

export type RefusalKind = (typeof REFUSAL_KINDS)[TargetErrorCode];

/** The code of a refusal named by its kind; null for any other kind (a network failure). */
export function refusalCodeOf(kind: string): TargetErrorCode | null {
  return (Object.keys(REFUSAL_KINDS) as TargetErrorCode[]).find((code) => REFUSAL_KINDS[code] === kind) ?? null;
}

/** The URL's host without IPv6 brackets, as sockets and `lookup` want it. */
export const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

export function checkTargetUrl(
  unsafeUrl: string,
  { allowPrivate = false, policy = WEBHOOK_TARGETS }: { allowPrivate?: boolean; policy?: TargetPolicy } = {},
): TargetCheck {
  // WHATWG parsing also turns odd IPv4 spellings (2130706433, 0x7f.1, 017700000001, 127.1)
  // into dotted quads, so the host check below sees the address the socket would use.
  if (!URL.canParse(unsafeUrl)) {
    return { ok: false, code: 'URL_INVALID', message: `${JSON.stringify(unsafeUrl)} is not a valid absolute URL` };
  }
  const url = new URL(unsafeUrl);
  if (!(policy.protocols as readonly string[]).includes(url.protocol)) {
    const allowed = policy.protocols.map((p) => p.slice(0, -1)).join(' or ');
    return {
      ok: false,
      code: 'URL_NOT_HTTPS',
      message: `${policy.urls} must use ${allowed} (this one uses ${url.protocol.slice(0, -1)})`,
    };
  }
  if (url.username || url.password) {
    return {
      ok: false,
      code: 'URL_HAS_CREDENTIALS',
      message: `${policy.urls} must not contain a user name or password; ${policy.noCredentials}`,
    };
  }
  const host = checkHost(url.hostname, { allowPrivate, mustBePublic: policy.mustBePublic });
  if (!host.ok) return { ok: false, code: 'URL_HOST_NOT_PUBLIC', message: host.message };
  return { ok: true, url };
}
