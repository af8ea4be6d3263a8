// URL comparison as the checks need it: exact (scheme, host, port, path, trailing slash and
// query all count; the fragment does not), and a plain-words reason when two URLs differ.

/** Normalized form: lower-case scheme and host, default port dropped, fragment removed. */
export function normalizeUrl(unsafe: string, base?: string): string | null {
  try {
    const u = new URL(unsafe, base);
    u.hash = '';
    return u.href; // WHATWG URL lower-cases scheme and host and drops default ports
  } catch {
    return null;
  }
}

/** Which part differs between two URLs, in words; null when they are the same page. */
export function urlDifference(expected: string, actual: string): string | null {
  const a = new URL(expected);
  const b = new URL(actual);
  a.hash = '';
  b.hash = '';
  if (a.href === b.href) return null;
  if (a.protocol !== b.protocol)
    return `scheme differs (${b.protocol.replace(':', '')} instead of ${a.protocol.replace(':', '')})`;
  if (a.host !== b.host) return `host differs (${b.host} instead of ${a.host})`;
  if (a.pathname !== b.pathname) {
    if (a.pathname.replace(/\/$/, '') === b.pathname.replace(/\/$/, ''))
      return b.pathname.endsWith('/')
        ? 'it has a trailing slash the page URL does not'
        : 'it lacks the trailing slash of the page URL';
    return `path differs (${b.pathname} instead of ${a.pathname})`;
  }
  return `query differs (${b.search || 'none'} instead of ${a.search || 'none'})`;
}
