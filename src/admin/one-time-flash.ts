// One-time state for the page that follows a POST (post/redirect/get): a generated secret, what
// a failed form held, a test result. Kept in memory beside the session — never in a URL, a
// cookie or a log — and gone once read, so a reload shows it no more and re-sends nothing.
import type { Session } from './sessions.ts';

export function createOneTimeFlash<T>() {
  // Keyed by the session object: a signed-out or expired session takes its flash with it.
  const pending = new WeakMap<Session, T>();
  return {
    put(session: Session, value: T): void {
      pending.set(session, value);
    },
    /** Reads and deletes it, if it is for this page (`isFor`); another page leaves it waiting. */
    take(session: Session, isFor: (value: T) => boolean = () => true): T | null {
      const value = pending.get(session);
      if (value === undefined || !isFor(value)) return null;
      pending.delete(session);
      return value;
    },
  };
}
