// How long an answer of the Content API may be cached: one hour (the spec), never past the next
// go-live or expiry that changes it; never in a shared cache for a preview key. Made once per
// answer from the request's key scope and the body's `until`, wherever the answer is made.
import { maxAgeUntil } from '../schedule/windows.ts';

/** How long a public answer may be cached when nothing scheduled changes it sooner (spec: one hour). */
export const MAX_AGE = 3600;
export const PUBLIC_CACHE = `public, max-age=${MAX_AGE}`;
/** Answers to a preview key: drafts must never sit in a shared cache, nor in a browser's. */
export const PREVIEW_CACHE = 'private, no-store';

/** Cache-Control of a public answer that stays true until `until` (ms; null: nothing scheduled changes it). */
export function publicCacheUntil(until: number | null, now: number): string {
  return until === null ? PUBLIC_CACHE : `public, max-age=${maxAgeUntil(until, now, MAX_AGE)}`;
}
