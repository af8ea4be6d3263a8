// Rule 1: the page URL is in the site's sitemap with lastmod equal to the article's updatedAt.
import { compareLastmod } from './lastmod.ts';
import { check, type CheckResult } from './report.ts';
import type { SitemapIndex } from './sitemap.ts';
import { normalizeUrl } from './urls.ts';

const FIX_REFRESH =
  'Set <lastmod> to the article\'s updatedAt from GET /v1/articles/{slug}, and refresh it on every "updated" webhook.';

export function checkSitemap(index: SitemapIndex, pageUrl: string, updatedAt: string | null, now: number): CheckResult {
  if (index.problem) {
    return index.problem.fetchFailed
      ? check('sitemap', 'error', index.problem.code, `the sitemap could not be read: ${index.problem.message}`)
      : check('sitemap', 'fail', index.problem.code, index.problem.message, {
          fix: 'Serve /sitemap.xml listing every article URL, and announce it in robots.txt with a "Sitemap:" line.',
        });
  }
  const key = normalizeUrl(pageUrl)!;
  const entry = index.entries.get(key);
  if (!entry) {
    const alt = key.endsWith('/') ? key.slice(0, -1) : `${key}/`;
    const near =
      index.entries.get(alt) ??
      index.entries.get(normalizeUrl(alt.replace(/^https?:/, key.startsWith('https:') ? 'http:' : 'https:')) ?? '');
    if (near)
      return check(
        'sitemap',
        'fail',
        'SITEMAP_URL_MISMATCH',
        `the sitemap lists ${near.loc}, not the page URL ${pageUrl} (trailing slash or scheme differ)`,
        {
          expected: pageUrl,
          actual: near.loc,
          evidence: near.sitemap,
          fix: "List exactly the page's canonical URL in the sitemap.",
        },
      );
    return check(
      'sitemap',
      'fail',
      'SITEMAP_URL_MISSING',
      `${pageUrl} is not in the sitemap (${index.files.length} file${index.files.length === 1 ? '' : 's'}, ${index.entries.size} URLs)`,
      {
        expected: pageUrl,
        evidence: index.files.join(', '),
        fix: 'Add each article URL to the sitemap when its "published" webhook arrives.',
      },
    );
  }
  if (!entry.lastmod)
    return check('sitemap', 'fail', 'LASTMOD_MISSING', `${entry.loc} is listed without <lastmod>`, {
      expected: updatedAt,
      evidence: entry.sitemap,
      fix: FIX_REFRESH,
    });
  if (!updatedAt)
    return check(
      'sitemap',
      'pass',
      'LASTMOD_UNCHECKED',
      'listed; the article has no updatedAt to compare lastmod with',
      { actual: entry.lastmod },
    );
  const verdict = compareLastmod(entry.lastmod, updatedAt, {
    now,
    sitemapLastmods: [...index.entries.values()].flatMap((e) => e.lastmod ?? []),
  });
  return check('sitemap', verdict.status, verdict.code, verdict.message, {
    expected: updatedAt,
    actual: entry.lastmod,
    evidence: entry.sitemap,
    fix:
      verdict.status === 'pass'
        ? null
        : verdict.code === 'LASTMOD_NO_TIMEZONE'
          ? 'Write lastmod with its offset, e.g. 2026-04-03T15:30:00Z.'
          : FIX_REFRESH,
  });
}
