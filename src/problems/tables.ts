// The docs' code tables, made from the catalogue: `npm run problems:tables` writes them between
// their markers, and a test fails when a page's copy differs.
import { CATALOGUE, codesIn, type ProblemArea } from './catalogue.ts';

/** The pages (relative to the repository) that hold the code tables: the Content API's errors on
 * its own page, every other area on the problem-code reference. */
export const PROBLEM_TABLE_PAGES = ['docs/api.md', 'docs/problem-codes.md'] as const;

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Markdown table of one area's codes (API codes with their HTTP status). */
export function problemTable(area: ProblemArea): string {
  const codes = codesIn(area);
  const withStatus = area === 'api';
  const head = withStatus
    ? '| Status | Code | When | What to do |\n|---|---|---|---|'
    : '| Code | When | What to do |\n|---|---|---|';
  const rows = codes.map((code) => {
    const entry: { meaning: string; fix: string; status?: number } = CATALOGUE[code];
    const cells = [`\`${code}\``, cell(entry.meaning), cell(entry.fix)];
    return `| ${(withStatus ? [String(entry.status), ...cells] : cells).join(' | ')} |`;
  });
  return [head, ...rows].join('\n');
}

const marker = (area: ProblemArea) => ({
  open: `<!-- problem-codes:${area} -->`,
  close: `<!-- /problem-codes:${area} -->`,
});

/** A page with every marked table made anew from the catalogue (areas without markers untouched). */
export function withProblemTables(page: string): string {
  let out = page;
  for (const area of new Set(Object.values(CATALOGUE).map((e) => e.area))) {
    const { open, close } = marker(area);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) continue;
    out = `${out.slice(0, start + open.length)}\n${problemTable(area)}\n${out.slice(end)}`;
  }
  return out;
}

/** The areas whose tables a page marks. */
export const markedAreas = (page: string): ProblemArea[] =>
  [...new Set(Object.values(CATALOGUE).map((e) => e.area))].filter(
    (area) => page.includes(marker(area).open) && page.includes(marker(area).close),
  );
