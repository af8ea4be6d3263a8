// Which content codings a request accepts (`Accept-Encoding`, RFC 9110 12.5.3), best first. Pure:
// what the API does with the answer is in answer-encoding.ts.
import { CONTENT_CODINGS, type ContentCoding } from '../export/layout.ts';

export type Coding = ContentCoding | 'identity';

/** Our order among codings a client weighs the same: the smallest bytes first, identity last. */
const OUR_ORDER: readonly Coding[] = [...CONTENT_CODINGS, 'identity'];
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
/** Ranks identity below every coding the client named, when it did not name identity itself. */
const UNNAMED_IDENTITY = 0.0001;

/**
 * The codings the request accepts, most preferred first: by the client's q-values, ties broken
 * by OUR_ORDER. Without the header, or with an empty one, identity only (a client that names no
 * coding may not decode one). Identity stays acceptable unless refused by `identity;q=0`, or by
 * `*;q=0` without an `identity` entry. An entry with a malformed q-value is ignored. Empty when
 * nothing is acceptable.
 */
export function acceptableCodings(unsafeHeader: string | undefined): Coding[] {
  if (unsafeHeader === undefined || unsafeHeader.trim() === '') return ['identity'];
  const weights = new Map<string, number>();
  for (const entry of unsafeHeader.split(',')) {
    const [rawName, ...params] = entry.split(';');
    const name = rawName!.trim().toLowerCase();
    if (!name) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() !== 'q') continue;
      if (value === undefined || !QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    const coding = name === 'x-gzip' ? 'gzip' : name; // RFC 9110 8.4.1.3: the same coding
    if (valid && !weights.has(coding)) weights.set(coding, q);
  }
  const star = weights.get('*');
  const weightOf = (coding: Coding): number => {
    const named = weights.get(coding);
    if (named !== undefined) return named;
    if (coding === 'identity') return star === 0 ? 0 : (star ?? UNNAMED_IDENTITY);
    return star ?? 0;
  };
  return OUR_ORDER.map((coding, order) => ({ coding, order, q: weightOf(coding) }))
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map((c) => c.coding);
}
