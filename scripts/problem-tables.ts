// `npm run problems:tables`: writes the README's code tables from src/problems/catalogue.ts.
import fs from 'node:fs';
import { withProblemTables } from '../src/problems/tables.ts';

const file = new URL('../README.md', import.meta.url);
const before = fs.readFileSync(file, 'utf8');
const after = withProblemTables(before);
if (after !== before) fs.writeFileSync(file, after);
process.stdout.write(after === before ? 'README.md: code tables up to date\n' : 'README.md: code tables written\n');
