// Rule 3: the article's `html` is injected as received. Verbatim in the page (not inside script,
// template, noscript, textarea or a comment) passes; equal after an HTML5 round trip passes with
// a note; whitespace or attribute order only warns; anything else fails, naming the first
// element that differs.
import { check, clip, type CheckResult } from './report.ts';
import {
  attr,
  elements,
  findChild,
  inertRanges,
  isElement,
  parseHtmlFragment,
  serialize,
  textContent,
  type Document,
  type Element,
  type Node,
} from './html-tree.ts';

const FIX =
  'Inject `html` exactly as received (innerHTML, dangerouslySetInnerHTML, {@html …}, `| safe`), with no Markdown re-rendering, sanitizing, typography filters or lazy-loading rewrites.';

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function checkHtml(articleHtml: string, source: string, doc: Document): CheckResult {
  if (!articleHtml.trim()) return check('html', 'skipped', 'HTML_EMPTY', 'the article has no html to look for');
  const inert = inertRanges(doc);
  const inside = (at: number) => inert.some(([s, e]) => at >= s && at < e);
  let onlyInert = false;
  for (let at = source.indexOf(articleHtml); at !== -1; at = source.indexOf(articleHtml, at + 1)) {
    if (!inside(at))
      return check('html', 'pass', 'HTML_VERBATIM', 'the article html appears in the page exactly as sent');
    onlyInert = true;
  }
  const json = JSON.stringify(articleHtml).slice(1, -1);
  const lt = json.replace(/</g, '\\u003c');
  const jsonForms = [json, lt, lt.replace(/>/g, '\\u003e'), json.replace(/\//g, '\\/')];
  if (onlyInert || jsonForms.some((f) => source.includes(f))) {
    return check(
      'html',
      'fail',
      'HTML_ONLY_IN_SCRIPT',
      'the article html is in the page only inside a script (hydration data) or similar, not as rendered markup: crawlers without JavaScript see no article',
      { fix: `Render the article on the server. ${FIX}` },
    );
  }
  const body = findChild(doc, 'body') ?? doc;
  if (source.includes(escapeHtml(articleHtml)) || collapse(textContent(body)).includes(collapse(articleHtml))) {
    return check(
      'html',
      'fail',
      'HTML_ESCAPED',
      'the article html is shown as text (escaped), not rendered as markup',
      {
        evidence: clip(escapeHtml(articleHtml).slice(0, 200)),
        fix: `Insert it as HTML, not text (e.g. innerHTML instead of textContent, or the template's raw/safe filter). ${FIX}`,
      },
    );
  }

  const fragment = parseHtmlFragment(articleHtml);
  const expected = serialize(fragment);
  const articleText = collapse(textContent(fragment));
  const found = bestContainer(body, articleText);
  const container = found && widest(found);
  if (!container) {
    return check('html', 'fail', 'HTML_MISSING', 'the article text was not found on the page', {
      expected: clip(articleHtml),
      fix: FIX,
    });
  }
  const actual = serialize(container);
  if (actual === expected || serialize(parseHtmlFragment(actual)) === expected) {
    return check(
      'html',
      'pass',
      'HTML_EQUIVALENT',
      'the article html is on the page, equal after HTML5 parsing (its source spelling differs: entities, quoting or self-closing tags)',
    );
  }
  if (collapse(actual.replace(/>\s+</g, '><')) === collapse(expected.replace(/>\s+</g, '><'))) {
    return check(
      'html',
      'warn',
      'HTML_WHITESPACE_ONLY',
      'the article html is on the page with whitespace changed (no visible difference in most layouts)',
      { fix: FIX },
    );
  }
  const diff = firstDifference(fragment, container);
  if (diff?.kind === 'attribute-order')
    return check(
      'html',
      'warn',
      'HTML_ATTRIBUTE_ORDER',
      `attributes are in a different order (first at ${diff.where})`,
      { fix: FIX },
    );
  if (diff?.kind === 'structure' && collapse(textContent(container)) === articleText) {
    return check(
      'html',
      'fail',
      'HTML_RERENDERED',
      `the article text is there but the markup differs (${diff.message}): it looks re-rendered from Markdown or re-sanitized`,
      { expected: diff.expected, actual: diff.actual, fix: FIX },
    );
  }
  return check(
    'html',
    'fail',
    'HTML_MODIFIED',
    `the article html was changed: ${diff?.message ?? 'the markup differs'}`,
    { expected: diff?.expected ?? clip(expected), actual: diff?.actual ?? clip(actual), fix: FIX },
  );
}

/** The outermost ancestor with no text beyond the element's: the article's wrapper, not its first <p>. */
function widest(el: Element): Element {
  const text = collapse(textContent(el));
  let current = el;
  for (
    let parent = current.parentNode;
    parent && isElement(parent as Node) && (parent as Element).tagName !== 'body';
    parent = current.parentNode
  ) {
    if (collapse(textContent(parent as Element)) !== text) break;
    current = parent as Element;
  }
  return current;
}

/** The smallest element whose text contains the article's text (where the article was put). */
function bestContainer(root: Node, articleText: string): Element | null {
  const probe = articleText.slice(0, 80);
  let best: Element | null = null;
  let bestScore = -1;
  for (const el of elements(root)) {
    const text = collapse(textContent(el));
    if (!text) continue;
    const score = text.includes(articleText) ? 2 : probe && text.includes(probe) ? 1 : 0;
    if (score === 0) continue;
    // Prefer a full match, then the tightest element.
    if (score > bestScore || (score === bestScore && text.length <= collapse(textContent(best!)).length)) {
      best = el;
      bestScore = score;
    }
  }
  return best ?? mostOverlapping(root, articleText);
}

/** Fallback when the text itself was changed: the tightest element holding most of its words. */
function mostOverlapping(root: Node, articleText: string): Element | null {
  const words = new Set(
    articleText
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w.length > 2),
  );
  if (!words.size) return null;
  let best: Element | null = null;
  let bestHits = 0;
  let bestLength = Infinity;
  for (const el of elements(root)) {
    const text = collapse(textContent(el)).toLowerCase();
    const present = new Set(text.split(/\W+/));
    let hits = 0;
    for (const w of words) if (present.has(w)) hits++;
    if (hits > bestHits || (hits === bestHits && hits > 0 && text.length < bestLength)) {
      best = el;
      bestHits = hits;
      bestLength = text.length;
    }
  }
  return bestHits >= words.size / 2 ? best : null;
}

interface Difference {
  kind: 'structure' | 'attributes' | 'text' | 'attribute-order';
  where: string;
  message: string;
  expected: string;
  actual: string;
}

function describe(el: Element): string {
  return `<${el.tagName}${el.attrs.map((a) => ` ${a.name}="${a.value}"`).join('')}>`;
}

/** Walks both trees in document order and reports the first element or text that differs. */
function firstDifference(expectedRoot: Node, actualRoot: Node): Difference | null {
  const flatten = (n: Node, out: Node[] = []) => {
    for (const c of 'childNodes' in n ? (n as Element).childNodes : []) {
      if (c.nodeName === '#text' && !collapse((c as { value: string }).value)) continue;
      if (c.nodeName === '#comment') continue;
      out.push(c);
      if (isElement(c)) flatten(c, out);
    }
    return out;
  };
  const a = flatten(expectedRoot);
  const b = flatten(actualRoot);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (!x || !y) {
      const extra = (x ?? y)!;
      const what = isElement(extra) ? describe(extra) : `text "${clip(collapse(textContent(extra)), 60)}"`;
      return {
        kind: 'structure',
        where: what,
        message: x ? `${what} is missing on the page` : `the page has an extra ${what}`,
        expected: x ? what : '(nothing)',
        actual: y ? what : '(nothing)',
      };
    }
    if (isElement(x) !== isElement(y) || (isElement(x) && isElement(y) && x.tagName !== y.tagName)) {
      const dx = isElement(x) ? describe(x) : `text "${clip(collapse(textContent(x)), 60)}"`;
      const dy = isElement(y) ? describe(y) : `text "${clip(collapse(textContent(y)), 60)}"`;
      return { kind: 'structure', where: dx, message: `${dy} where ${dx} was sent`, expected: dx, actual: dy };
    }
    if (isElement(x) && isElement(y)) {
      const ax = x.attrs.map((t) => `${t.name}=${t.value}`);
      const ay = y.attrs.map((t) => `${t.name}=${t.value}`);
      if (ax.join('\0') !== ay.join('\0')) {
        const gained = y.attrs.filter((t) => attr(x, t.name) !== t.value).map((t) => `${t.name}="${t.value}"`);
        const lost = x.attrs.filter((t) => attr(y, t.name) !== t.value).map((t) => `${t.name}="${t.value}"`);
        if (!gained.length && !lost.length) continue; // same set, other order: noted below if nothing else differs
        const parts = [gained.length ? `gained ${gained.join(' ')}` : '', lost.length ? `lost ${lost.join(' ')}` : '']
          .filter(Boolean)
          .join(', ');
        return {
          kind: 'attributes',
          where: describe(x),
          message: `<${x.tagName}> ${parts}`,
          expected: describe(x),
          actual: describe(y),
        };
      }
    } else {
      const tx = collapse((x as { value: string }).value);
      const ty = collapse((y as { value: string }).value);
      if (tx !== ty)
        return {
          kind: 'text',
          where: 'text',
          message: `text differs: "${clip(ty, 80)}" instead of "${clip(tx, 80)}"`,
          expected: tx,
          actual: ty,
        };
    }
  }
  const reordered = a.find(
    (x, i) =>
      isElement(x) &&
      isElement(b[i]!) &&
      x.attrs.map((t) => t.name).join() !== (b[i] as Element).attrs.map((t) => t.name).join(),
  );
  return reordered && isElement(reordered)
    ? { kind: 'attribute-order', where: describe(reordered), message: 'attribute order', expected: '', actual: '' }
    : null;
}
