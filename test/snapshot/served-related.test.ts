// An article's `related` as public readers get it at an instant (src/snapshot/served-related.ts):
// cut to the articles live then, every other byte as the build wrote it, with an ETag of its own;
// and the next instant at which that cut changes.
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../../src/export/content-hash.ts';
import { relatedChangesAt, withLiveRelated, type RelatedWindows } from '../../src/snapshot/served-related.ts';
import type { Body } from '../../src/snapshot/snapshot-reader.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const at = (iso: string) => Date.parse(iso);
const NOW = at('2026-05-01T12:00:00Z');

const articles: RelatedWindows = {
  live: { publishedAt: '2026-04-01T00:00:00Z' },
  undated: { publishedAt: null },
  scheduled: { publishedAt: '2026-05-02T08:00:00Z' },
  expired: { publishedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-04-30T00:00:00Z' },
  expiring: { publishedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-05-03T00:00:00Z' },
};
const related = (slugs: string[]) =>
  slugs.map((slug) => ({ slug, title: `The “${slug}” one`, url: `https://one.example.com/${slug}` }));
/** A body as the build writes it (JSON.stringify), naming `slugs` in `related`. */
function bodyNaming(slugs: string[]): Body {
  const bytes = encoder.encode(
    JSON.stringify({
      slug: 'a',
      title: 'A \u2028 "quoted"',
      html: '<p>Ünïcode</p>',
      related: related(slugs),
      updatedAt: null,
    }),
  );
  return { bytes, etag: `"${hashBytes(bytes)}"`, encoded: { br: new Uint8Array([1, 2, 3]) } };
}

describe('related articles served at an instant', () => {
  it('when all are live, are the body as built, compressed variants and all', () => {
    const body = bodyNaming(['live', 'undated', 'expiring']);
    expect(withLiveRelated(body, { related: ['live', 'undated', 'expiring'] }, articles, NOW)).toBe(body);
    const none = bodyNaming([]);
    expect(withLiveRelated(none, {}, articles, NOW)).toBe(none);
  });

  it('leave out the scheduled, the expired and the unknown; every other byte stays as built', () => {
    const named = ['scheduled', 'live', 'expired', 'gone', 'expiring'];
    const served = withLiveRelated(bodyNaming(named), { related: named }, articles, NOW);
    expect(decoder.decode(served.bytes)).toBe(decoder.decode(bodyNaming(['live', 'expiring']).bytes));
    expect(served.etag).toBe(`"${hashBytes(served.bytes)}"`);
    expect(served.encoded).toBeUndefined(); // the build's compressed bytes are of the uncut body
  });

  it('follow the clock: a scheduled one appears at its go-live, an expiring one goes at its expiry', () => {
    const named = ['scheduled', 'expiring'];
    const slugsAt = (nowMs: number) =>
      (
        JSON.parse(decoder.decode(withLiveRelated(bodyNaming(named), { related: named }, articles, nowMs).bytes)) as {
          related: { slug: string }[];
        }
      ).related.map((r) => r.slug);
    expect(slugsAt(NOW)).toEqual(['expiring']);
    expect(slugsAt(at('2026-05-02T08:00:00Z') - 1)).toEqual(['expiring']);
    expect(slugsAt(at('2026-05-02T08:00:00Z'))).toEqual(['scheduled', 'expiring']);
    expect(slugsAt(at('2026-05-03T00:00:00Z'))).toEqual(['scheduled']);
  });

  it('change next at the first go-live or expiry among those named, none when nothing named is timed', () => {
    expect(relatedChangesAt({ related: ['live', 'expiring', 'scheduled'] }, articles, NOW)).toBe(
      at('2026-05-02T08:00:00Z'),
    );
    expect(relatedChangesAt({ related: ['expiring'] }, articles, NOW)).toBe(at('2026-05-03T00:00:00Z'));
    expect(relatedChangesAt({ related: ['expiring'] }, articles, at('2026-05-03T00:00:00Z'))).toBeNull();
    expect(relatedChangesAt({ related: ['live', 'undated', 'expired', 'gone'] }, articles, NOW)).toBeNull();
    expect(relatedChangesAt({}, articles, NOW)).toBeNull();
    // Times of articles it does not name do not count.
    expect(relatedChangesAt({ related: ['live'] }, articles, NOW)).toBeNull();
  });
});
