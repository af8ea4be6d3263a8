// `quire build` exactly as `npm run build` runs it (with `--quire` first, the quire command the
// remaining arguments name; with a script path first, that script with the remaining arguments,
// e.g. Eleventy's CLI), reporting at exit the
// process's peak RSS (worker threads included) and CPU time on stderr's last line.
import { createRequire } from 'node:module';
import path from 'node:path';

const script = process.argv[2];
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(
    `\n${JSON.stringify({ maxRssKiB: usage.maxRSS, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 })}\n`,
  );
});
if (script === '--quire') {
  process.argv.splice(2, 1);
  await import('../../bin/quire.js');
} else if (script) {
  process.argv.splice(1, 2, path.resolve(script));
  createRequire(import.meta.url)(path.resolve(script));
} else {
  process.argv.splice(2, Infinity, 'build');
  await import('../../bin/quire.js');
}
