// What a receiver may answer a delivery with (spec 2.5): an optional `{url, id}` naming where the
// article landed. Anything else is noted and ignored: the delivery still succeeded.

/** A receiver's reply is a small JSON object; anything larger is cut off unread. */
export const MAX_REPLY_BYTES = 64 * 1024;

/** The optional `{url, id}` reply; anything else is noted and ignored. */
export function parseReply(
  body: Buffer,
  truncated: boolean,
): { url: string | null; id: string | null; note: string | null } {
  const none = (note: string | null) => ({ url: null, id: null, note });
  if (body.length === 0) return none(null);
  if (truncated) return none(`reply ignored: larger than ${MAX_REPLY_BYTES} bytes`);
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return none('reply ignored: not JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return none('reply ignored: not a {url, id} object');
  const { url, id } = data as Record<string, unknown>;
  if (typeof url !== 'string' || typeof id !== 'string' || id.length > 1000)
    return none('reply ignored: url and id must be strings');
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return none('reply ignored: url is not http(s)');
    return { url: parsed.href, id, note: null };
  } catch {
    return none('reply ignored: url is not an absolute URL');
  }
}
