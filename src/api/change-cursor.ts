// The cursor of GET /v1/changes: opaque to clients, and made so that it can only be read back by
// the store and the site it was made for. It names the state store's identity (a cursor from
// another store, or one started over, is expired, never silently wrong), the site, by a tag of
// its id (a cursor cannot be used with another site's key), and the position in that site's
// change log (positions are per site: a cursor counts its own site's changes, no other's). Nothing in it is secret: a client that forges one reads only its own site's
// changes. A short check of the rest makes a cursor cut short or mistyped malformed (400), not
// another position.
import { hashBytes } from '../export/content-hash.ts';

export interface ChangeCursor {
  storeId: string;
  /** A tag of the site's id (see siteTag). */
  site: string;
  position: number;
}

/** Longer than any cursor this module makes: nothing bigger is decoded. */
const MAX_CURSOR_LENGTH = 160;
const SHAPE = /^(c1\.([0-9a-f]{16,64})\.([A-Za-z0-9_-]{12})\.(0|[1-9]\d{0,14}))\.([A-Za-z0-9_-]{8})$/;
const checkOf = (text: string) => hashBytes(text).slice(0, 8);

/** What a cursor says of its site: enough to tell two sites apart, the same length for every id. */
export const siteTag = (siteId: string): string => hashBytes(`site:${siteId}`).slice(0, 12);

export function encodeCursor(c: { storeId: string; siteId: string; position: number }): string {
  const text = `c1.${c.storeId}.${siteTag(c.siteId)}.${c.position}`;
  return btoa(`${text}.${checkOf(text)}`)
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The cursor in `unsafeText`, or null when it is not one encodeCursor made. */
export function decodeCursor(unsafeText: string): ChangeCursor | null {
  if (unsafeText.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(unsafeText)) return null;
  let text: string;
  try {
    text = atob(unsafeText.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null; // not base64 (a length no encoding has)
  }
  const m = SHAPE.exec(text);
  if (!m || m[5] !== checkOf(m[1]!)) return null;
  return { storeId: m[2]!, site: m[3]!, position: Number(m[4]) };
}
