// One cold build in this process; prints its time and the process's peak RSS (workers included).
import { buildDist } from '../../src/build/build.ts';
import { parseConfig } from '../../src/config/config.ts';

const config = parseConfig(process.env);
const started = performance.now();
const result = await buildDist(config);
const ms = performance.now() - started;
if (!result.ok) {
  process.stderr.write(`build failed: ${result.issues.length} issues\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
