// Who may ask the server to fetch: a push notification signed with QUIRE_GIT_HOOK_SECRET, as
// GitHub signs (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`) or as GitLab
// sends it (`X-Gitlab-Token: <secret>`). Both compared in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HookSender = 'github' | 'gitlab';

/** The sender whose proof matches, or null (no header, a wrong one, or a malformed one). */
export function verifyPushHook(
  header: (name: string) => string | undefined,
  rawBody: Uint8Array,
  secret: string,
): HookSender | null {
  const signature = header('x-hub-signature-256');
  if (signature !== undefined) {
    const m = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim());
    if (!m) return null;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return timingSafeEqual(Buffer.from(m[1]!, 'hex'), expected) ? 'github' : null;
  }
  const token = header('x-gitlab-token');
  if (token !== undefined) return sameSecret(token, secret) ? 'gitlab' : null;
  return null;
}

/** Constant time whatever the lengths: both sides hashed to the same size first. */
function sameSecret(given: string, secret: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/**
 * The ref a push payload names (`"ref": "refs/heads/main"` in both GitHub's and GitLab's push
 * events), or null when the body is not such a payload (a ping, a form-encoded body): then the
 * caller fetches anyway, which costs one fetch that finds nothing new.
 */
export function pushedRef(rawBody: Uint8Array): string | null {
  try {
    const body: unknown = JSON.parse(Buffer.from(rawBody).toString('utf8'));
    if (body && typeof body === 'object' && 'ref' in body && typeof body.ref === 'string') return body.ref;
  } catch {
    // not JSON
  }
  return null;
}
