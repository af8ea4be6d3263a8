// Webhook delivery throughput: 1,000 events of ~12 KB through the real outbox and delivery
// runner to a loopback HTTPS receiver in another process, next to a bare keep-alive
// https.request loop sending the same bytes at the same concurrency, in the same run. The
// measurement (deliveries-run.ts) is bundled as the CLI is and run in a child process.
//   npm run bench -- --only deliveries
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../bin/cli-bundle.js';
import type { DeliveriesResult } from './deliveries-run.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OUT = path.join(ROOT, '.bench-cache', 'deliveries-run.mjs');

export async function benchDeliveries(): Promise<DeliveriesResult> {
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  // selfsigned stays external: it is the bench's, and loads as installed.
  await build({
    ...BUNDLE_OPTIONS,
    absWorkingDir: ROOT,
    entryPoints: [path.join(import.meta.dirname, 'deliveries-run.ts')],
    outfile: OUT,
    external: [...BUNDLE_OPTIONS.external!, 'selfsigned'],
  });
  const stdout = execFileSync(process.execPath, [OUT, path.join(import.meta.dirname, 'receiver-child.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(stdout) as DeliveriesResult;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchDeliveries();
  console.log(
    `| deliveries/s (1,000 × ${(r.bytes / 1024).toFixed(1)} KB) | Quire ${r.quirePerSec.toFixed(0)} | bare https ${r.barePerSec.toFixed(0)} | ${(r.ratio * 100).toFixed(0)} % |`,
  );
}
