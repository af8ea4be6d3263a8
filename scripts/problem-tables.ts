// `npm run problems:tables`: writes the code tables of docs/api.md and docs/problem-codes.md from
// src/problems/catalogue.ts.
import fs from 'node:fs';
import { PROBLEM_TABLE_PAGES, withProblemTables } from '../src/problems/tables.ts';

for (const page of PROBLEM_TABLE_PAGES) {
  const file = new URL(`../${page}`, import.meta.url);
  const before = fs.readFileSync(file, 'utf8');
  const after = withProblemTables(before);
  if (after !== before) fs.writeFileSync(file, after);
  process.stdout.write(after === before ? `${page}: code tables up to date\n` : `${page}: code tables written\n`);
}
