// Admin sessions: the admin token is exchanged once for a random session id in an HttpOnly,
// SameSite=Strict cookie; each session carries its own CSRF token (synchronizer pattern), so the
// app's forms work whatever Origin/Referer a browser sends. Sessions live in memory: a restart
// signs everyone out, which is what a single-operator tool wants.
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';

export const SESSION_COOKIE = 'quire_admin';
const SESSION_TTL_MS = 12 * 3_600_000;
const FAILURES_PER_MINUTE = 10;

export interface Session {
  id: string;
  csrf: string;
  expiresAt: number;
  /** A one-time message for the next page (post/redirect/get). */
  flash: { kind: 'ok' | 'error'; text: string } | null;
}

/** Equal-length digests compared in constant time: the token's length leaks nothing either. */
export function tokensEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export function createSessions(adminToken: string, now: () => number = Date.now) {
  const sessions = new Map<string, Session>();
  let failures: number[] = [];
  const sweep = () => {
    const t = now();
    for (const [id, s] of sessions) if (s.expiresAt <= t) sessions.delete(id);
  };
  return {
    /** null: wrong token; 'throttled': too many wrong tokens in the last minute. */
    signIn(unsafeToken: string): Session | null | 'throttled' {
      const t = now();
      failures = failures.filter((f) => f > t - 60_000);
      if (failures.length >= FAILURES_PER_MINUTE) return 'throttled';
      if (!tokensEqual(unsafeToken, adminToken)) {
        failures.push(t);
        return null;
      }
      sweep();
      const session: Session = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url'), expiresAt: t + SESSION_TTL_MS, flash: null };
      sessions.set(session.id, session);
      return session;
    },
    get(unsafeId: string | undefined): Session | null {
      if (!unsafeId) return null;
      const s = sessions.get(unsafeId);
      if (!s || s.expiresAt <= now()) return null;
      return s;
    },
    signOut(id: string): void {
      sessions.delete(id);
    },
    /** Constant-time check of a submitted CSRF token against the session's. */
    csrfValid(session: Session, unsafeToken: string | undefined): boolean {
      return typeof unsafeToken === 'string' && tokensEqual(unsafeToken, session.csrf);
    },
    takeFlash(session: Session): Session['flash'] {
      const f = session.flash;
      session.flash = null;
      return f;
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
