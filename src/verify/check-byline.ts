// Rule 4: the author's name is visible text (not only JSON-LD or meta), and when the author has a
// url, the name sits inside a link to it.
import { check, type CheckResult } from './report.ts';
import { attr, findChild, visibleText, type Document } from './html-tree.ts';
import { normalizeUrl } from './urls.ts';

const normalize = (s: string) =>
  s
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/^by\s+/, '');

export function checkByline(
  author: { name: string; url: string | null } | null,
  doc: Document,
  source: string,
  pageUrl: string,
): CheckResult {
  if (!author) return check('byline', 'skipped', 'NO_AUTHOR', 'the article has no author, so no byline is expected');
  const name = normalize(author.name);
  const body = findChild(doc, 'body') ?? doc;
  const runs = visibleText(body);
  // Names may be split across text nodes (e.g. "By " + <a>Ann</a>): look in each link and in the joined text.
  const links = new Map<object, string>();
  for (const r of runs) if (r.link) links.set(r.link, (links.get(r.link) ?? '') + r.text);
  const linked = [...links.entries()].filter(([, text]) => normalize(text).includes(name));
  const visible = linked.length > 0 || normalize(runs.map((r) => r.text).join(' ')).includes(name);
  if (!visible) {
    const hidden = source.normalize('NFKC').toLowerCase().includes(author.name.normalize('NFKC').toLowerCase());
    return hidden
      ? check(
          'byline',
          'fail',
          'BYLINE_NOT_VISIBLE',
          `"${author.name}" is in the page only where readers cannot see it (JSON-LD, meta or hidden elements)`,
          {
            expected: author.name,
            fix: "Show a visible byline with the author's name near the title (keep JSON-LD as well if you like).",
          },
        )
      : check('byline', 'fail', 'BYLINE_MISSING', `no byline: "${author.name}" does not appear on the page`, {
          expected: author.name,
          fix: 'Fetch the author from GET /v1/articles/{slug} (webhook payloads have none) and render "By <name>".',
        });
  }
  if (!author.url)
    return check('byline', 'pass', 'BYLINE_OK', `the byline shows "${author.name}"`, { expected: author.name });
  const want = normalizeUrl(author.url);
  const base = findChild(doc, 'base');
  const baseUrl = base && attr(base, 'href') ? (normalizeUrl(attr(base, 'href')!, pageUrl) ?? pageUrl) : pageUrl;
  const hrefs = linked.map(([a]) => normalizeUrl(attr(a as never, 'href') ?? '', baseUrl));
  if (hrefs.includes(want))
    return check('byline', 'pass', 'BYLINE_OK', `the byline shows "${author.name}" linked to ${author.url}`, {
      expected: author.url,
      actual: author.url,
    });
  if (hrefs.length) {
    return check(
      'byline',
      'fail',
      'BYLINE_LINK_MISMATCH',
      `"${author.name}" links to ${hrefs.filter(Boolean).join(', ')}, not to the author's url`,
      {
        expected: author.url,
        actual: hrefs.join(', '),
        fix: `Link the byline to the author's url from the API: <a href="${author.url}">${author.name}</a>.`,
      },
    );
  }
  return check('byline', 'fail', 'BYLINE_NOT_LINKED', `"${author.name}" is shown but not linked to the author's url`, {
    expected: author.url,
    fix: `Wrap the name in <a href="${author.url}">…</a> (the author object's url).`,
  });
}
