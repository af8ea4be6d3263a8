// The Worker deployed from this checkout (wrangler.toml) and from a content repository (the file
// `quire edge --init` writes) are the one `quire edge` runs: same entry, same compatibility date.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { WORKER_COMPATIBILITY_DATE, WORKER_ENTRY, wranglerConfig } from '../../src/deploy/worker-bundle.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

it("this checkout's wrangler.toml is the generated one with main = the Worker entry", () => {
  const text = fs.readFileSync(path.join(ROOT, 'wrangler.toml'), 'utf8');
  expect(text.endsWith(wranglerConfig(WORKER_ENTRY))).toBe(true);
  expect(text).toContain(`main = "${WORKER_ENTRY}"`);
  expect(text).toContain(`compatibility_date = "${WORKER_COMPATIBILITY_DATE}"`);
  expect(fs.existsSync(path.join(ROOT, WORKER_ENTRY))).toBe(true);
});
