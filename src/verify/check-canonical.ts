// Rule 2: exactly one rel=canonical in <head> (after HTML5 parsing), pointing at the page itself.
import { check, type CheckResult } from './report.ts';
import { attr, elements, findChild, type Document, type Element } from './html-tree.ts';
import { header } from './fetch-page.ts';
import { normalizeUrl, urlDifference } from './urls.ts';

const FIX_SELF =
  'Render <link rel="canonical" href="…"> in <head> with the page\'s own absolute URL (the URL in the sitemap and in your webhook reply).';

const isCanonical = (el: Element) =>
  el.tagName === 'link' && (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).includes('canonical');

export function checkCanonical(
  doc: Document,
  page: { finalUrl: string; headers: Record<string, string | string[] | undefined>; redirects: string[] },
): CheckResult {
  const head = findChild(doc, 'head');
  const body = findChild(doc, 'body');
  const base = head ? [...elements(head)].find((e) => e.tagName === 'base' && attr(e, 'href')) : undefined;
  const baseUrl = base ? (normalizeUrl(attr(base, 'href')!, page.finalUrl) ?? page.finalUrl) : page.finalUrl;
  const inHead = head ? [...elements(head)].filter(isCanonical) : [];
  const inBody = body ? [...elements(body)].filter(isCanonical) : [];
  const linkHeader = header(page.headers, 'link');
  const fromHeader = linkHeader ? /<([^>]*)>\s*;[^,]*rel="?[^",]*\bcanonical\b/i.exec(linkHeader)?.[1] : undefined;
  const expected = normalizeUrl(page.finalUrl)!;
  const redirectNote = page.redirects.length
    ? ` The article URL redirects (${page.redirects.join('; ')}): link and list the final URL instead.`
    : '';

  if (inHead.length > 1) {
    const hrefs = inHead.map((e) => attr(e, 'href') ?? '');
    return check(
      'canonical',
      'fail',
      'CANONICAL_MULTIPLE',
      `${inHead.length} canonical links in <head>; exactly one is allowed`,
      {
        expected,
        actual: hrefs.join(' | '),
        fix: 'Keep a single <link rel="canonical"> (themes and SEO plugins often add a second one).',
      },
    );
  }
  if (!inHead.length) {
    if (inBody.length) {
      return check(
        'canonical',
        'fail',
        'CANONICAL_NOT_IN_HEAD',
        'the canonical link ends up in <body> after HTML5 parsing (an element before it closed <head> early), where search engines ignore it',
        {
          expected,
          actual: attr(inBody[0]!, 'href') ?? '',
          fix: 'Move the canonical link above any element that is not allowed in <head> (div, img, p…).',
        },
      );
    }
    if (fromHeader !== undefined)
      return compare(normalizeUrl(fromHeader, page.finalUrl), fromHeader, expected, 'HTTP Link header', redirectNote);
    return check('canonical', 'fail', 'CANONICAL_MISSING', `no <link rel="canonical"> in <head>.${redirectNote}`, {
      expected,
      fix: FIX_SELF,
    });
  }
  const href = attr(inHead[0]!, 'href') ?? '';
  if (!href.trim())
    return check('canonical', 'fail', 'CANONICAL_EMPTY', 'the canonical link has an empty href', {
      expected,
      actual: '',
      fix: FIX_SELF,
    });
  const resolved = normalizeUrl(href.trim(), baseUrl);
  if (fromHeader !== undefined && normalizeUrl(fromHeader, page.finalUrl) !== resolved) {
    return check(
      'canonical',
      'fail',
      'CANONICAL_CONFLICT',
      'the HTTP Link header and the <link> element name different canonical URLs',
      {
        expected,
        actual: `<link>: ${resolved}; Link header: ${fromHeader}`,
        fix: "Send one canonical URL: drop one of them or make both the page's own URL.",
      },
    );
  }
  return compare(resolved, href, expected, '<link rel="canonical">', redirectNote);
}

function compare(
  resolved: string | null,
  raw: string,
  expected: string,
  where: string,
  redirectNote: string,
): CheckResult {
  if (!resolved)
    return check('canonical', 'fail', 'CANONICAL_INVALID', `the ${where} href "${raw}" is not a URL`, {
      expected,
      actual: raw,
      fix: FIX_SELF,
    });
  const diff = urlDifference(expected, resolved);
  if (diff)
    return check('canonical', 'fail', 'CANONICAL_MISMATCH', `the ${where} points elsewhere: ${diff}.${redirectNote}`, {
      expected,
      actual: resolved,
      evidence: raw,
      fix: FIX_SELF,
    });
  if (redirectNote)
    return check(
      'canonical',
      'warn',
      'PAGE_REDIRECTS',
      `the canonical is the final URL, but the article URL redirects.${redirectNote}`,
      { expected, actual: resolved },
    );
  return check('canonical', 'pass', 'CANONICAL_OK', `${where} points at the page itself`, {
    expected,
    actual: resolved,
  });
}
