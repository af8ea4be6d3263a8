// The README's code tables, made from the catalogue: `npm run problems:tables` writes them between
// their markers, and a test fails when the README's copy differs.
import { CATALOGUE, codesIn, type ProblemArea } from './catalogue.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Markdown table of one area's codes (API codes with their HTTP status). */
export function problemTable(area: ProblemArea): string {
  const codes = codesIn(area);
  const withStatus = area === 'api';
  const head = withStatus ? '| Status | Code | When | What to do |\n|---|---|---|---|' : '| Code | When | What to do |\n|---|---|---|';
  const rows = codes.map((code) => {
    const entry: { meaning: string; fix: string; status?: number } = CATALOGUE[code];
    const cells = [`\`${code}\``, cell(entry.meaning), cell(entry.fix)];
    return `| ${(withStatus ? [String(entry.status), ...cells] : cells).join(' | ')} |`;
  });
  return [head, ...rows].join('\n');
}

const marker = (area: ProblemArea) => ({ open: `<!-- problem-codes:${area} -->`, close: `<!-- /problem-codes:${area} -->` });

/** The README with every marked table made anew from the catalogue (areas without markers untouched). */
export function withProblemTables(readme: string): string {
  let out = readme;
  for (const area of new Set(Object.values(CATALOGUE).map((e) => e.area))) {
    const { open, close } = marker(area);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) continue;
    out = `${out.slice(0, start + open.length)}\n${problemTable(area)}\n${out.slice(end)}`;
  }
  return out;
}

/** The areas whose tables the README marks. */
export const markedAreas = (readme: string): ProblemArea[] =>
  [...new Set(Object.values(CATALOGUE).map((e) => e.area))].filter((area) => readme.includes(marker(area).open) && readme.includes(marker(area).close));
