// Admin sessions: the admin token is exchanged once for a random session id in an HttpOnly,
// SameSite=Strict cookie; each session carries its own CSRF token (synchronizer pattern), so the
// app's forms work whatever Origin/Referer a browser sends. Sessions live in memory: a restart
// signs everyone out, which is what a single-operator tool wants.
// Wrong tokens are throttled per client, so one client guessing cannot lock the owner out.
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { BoundedMap } from '../cache/bounded-map.ts';

export const SESSION_COOKIE = 'quire_admin';
const SESSION_TTL_MS = 12 * 3_600_000;
const FAILURES_PER_MINUTE = 10;
const FAILURE_WINDOW_MS = 60_000;
/** Clients whose recent failures are remembered; past this the longest-quiet one is forgotten. */
const MAX_THROTTLED_CLIENTS = 10_000;

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
  // client key → times of its wrong tokens within the window
  const failures = new BoundedMap<string, number[]>(MAX_THROTTLED_CLIENTS);
  const sweep = () => {
    const t = now();
    for (const [id, s] of sessions) if (s.expiresAt <= t) sessions.delete(id);
  };
  return {
    /**
     * null: wrong token; 'throttled': this client sent too many wrong tokens in the last minute.
     * `client` is the client's key (src/server/client-address.ts), never a header it chose.
     */
    signIn(unsafeToken: string, client: string): Session | null | 'throttled' {
      const t = now();
      const recent = (failures.get(client) ?? []).filter((f) => f > t - FAILURE_WINDOW_MS);
      if (recent.length >= FAILURES_PER_MINUTE) return 'throttled';
      if (!tokensEqual(unsafeToken, adminToken)) {
        failures.set(client, [...recent, t]);
        return null;
      }
      sweep();
      const session: Session = {
        id: randomBytes(32).toString('base64url'),
        csrf: randomBytes(32).toString('base64url'),
        expiresAt: t + SESSION_TTL_MS,
        flash: null,
      };
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
