// `npm run bench [-- --only build,parse,api,compression,lists,deliveries,page-checks,fleet,publish,large,eleventy,ratio,edge,deploy]
// [--sizes 1000,4000,10000] [--large 100000] [--corpus standard|dense]`: every benchmark, printed as Markdown tables for
// docs/benchmarks.md.
// `ratio` is only the alternating Quire/Eleventy rounds that `eleventy` ends with.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchApi } from './api.ts';
import { benchCompression } from './compression.ts';
import { benchLists } from './lists.ts';
import { ensureBundle } from '../../bin/cli-bundle.js';
import { coldBuild, median, rebuilds, warmRebuilds } from './build.ts';
import { benchDeliveries } from './deliveries.ts';
import { benchPageChecks } from './page-checks.ts';
import { benchFleet } from './fleet.ts';
import { parseCorpusVariant } from './corpus.ts';
import { eleventyBuild, ensureEleventy } from './eleventy.ts';
import { benchParse } from './parse.ts';
import { benchPublishDryRun } from './publish-dry-run.ts';
import { benchLargeSite } from './large.ts';
import { benchDeploy, benchEdge } from './edge.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    sizes: { type: 'string', default: '1000,4000,10000' },
    large: { type: 'string', default: '100000' },
    corpus: { type: 'string', default: 'standard' },
  },
});
const corpus = parseCorpusVariant(values.corpus);
const only = new Set(
  (values.only ?? 'build,parse,eleventy,api,compression,lists,deliveries,page-checks,publish,large,edge,deploy').split(
    ',',
  ),
);
const sizes = values.sizes!.split(',').map(Number);
const largest = Math.max(...sizes);
const PAIRED_ROUNDS = 3;
const out = (line = '') => process.stdout.write(`${line}\n`);

out(
  `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}; ${corpus} corpus; load average ${os.loadavg()[0]!.toFixed(1)}`,
);

// Bundled once here, so that no timed run includes making the CLI bundle.
await ensureBundle();

if (only.has('build')) {
  out('\n| Quire build | articles | total | per article | peak RSS |\n|---|---|---|---|---|');
  for (const n of sizes) {
    const c = coldBuild(n, corpus);
    out(
      `| cold | ${n} | ${c.seconds.toFixed(1)} s | ${c.msPerArticle.toFixed(1)} ms | ${c.peakRssMiB.toFixed(0)} MiB |`,
    );
  }
  const r = rebuilds(largest, 5, corpus);
  const w = await warmRebuilds(largest, 5, corpus);
  out(
    `\n| Rebuild at ${largest} (median of 5) | \`quire build\` (new process) | \`quire dev\` watcher (warm) |\n|---|---|---|`,
  );
  out(
    `| nothing changed | ${r.noChangeMs.toFixed(0)} ms | ${w.noChangeMs.toFixed(0)} ms |\n| one article changed | ${r.oneChangeMs.toFixed(0)} ms | ${w.oneChangeMs.toFixed(0)} ms |`,
  );
}

if (only.has('parse')) {
  const p = benchParse();
  out(
    `\n| Markdown parse, ${p.count} corpus articles (best of 6 alternating rounds) | per article |\n|---|---|\n| remark-parse + remark-gfm | ${p.stockMs.toFixed(2)} ms |\n| Quire's parser (same trees) | ${p.quireMs.toFixed(2)} ms |`,
  );
}

if (only.has('eleventy') || only.has('ratio')) {
  const version = ensureEleventy();
  if (only.has('eleventy')) {
    out(`\n| Eleventy ${version}, same corpus | articles | total | per article |\n|---|---|---|---|`);
    for (const n of sizes.filter((s) => s <= 4000)) {
      const e = eleventyBuild(n, corpus);
      out(`| cold | ${n} | ${e.seconds.toFixed(1)} s | ${e.msPerArticle.toFixed(1)} ms |`);
    }
  }
  // The target's ratio, measured in alternating runs so that both see the same machine. CPU
  // (user + system) moves less with the machine's load than wall time does.
  const n = Math.min(4000, largest);
  const pairs = Array.from({ length: PAIRED_ROUNDS }, () => ({
    quire: coldBuild(n, corpus),
    eleventy: eleventyBuild(n, corpus),
  }));
  const ratios = pairs.map((x) => x.quire.seconds / x.eleventy.seconds);
  const row = (x: { seconds: number; cpuSeconds: number; peakRssMiB: number }) =>
    `${x.seconds.toFixed(1)} s (CPU ${x.cpuSeconds.toFixed(1)} s, ${x.peakRssMiB.toFixed(0)} MiB)`;
  out(
    `\n| Cold build of ${n}, ${corpus} corpus, ${PAIRED_ROUNDS} alternating rounds | Quire | Eleventy ${version} | ratio |\n|---|---|---|---|`,
  );
  pairs.forEach((x, i) => out(`| round ${i + 1} | ${row(x.quire)} | ${row(x.eleventy)} | ${ratios[i]!.toFixed(2)}× |`));
  out(
    `| median | ${median(pairs.map((x) => x.quire.seconds)).toFixed(1)} s | ${median(pairs.map((x) => x.eleventy.seconds)).toFixed(1)} s | ${median(ratios).toFixed(2)}× |`,
  );
  out(`(load average at the end: ${os.loadavg()[0]!.toFixed(1)})`);
}

if (only.has('large')) {
  const l = benchLargeSite(Number(values.large), corpus);
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`;
  out(
    `\n| ${l.articles.toLocaleString('en')} articles, one project, \`quire\` commands (median of 3) | time | peak RSS |\n|---|---|---|`,
  );
  out(
    `| cold build | ${l.cold.seconds.toFixed(1)} s (CPU ${l.cold.cpuSeconds.toFixed(1)} s) | ${l.cold.peakRssMiB.toFixed(0)} MiB |`,
  );
  out(`| rebuild, nothing changed | ${ms(l.noChangeMs)} | |`);
  out(`| rebuild, one article changed | ${ms(l.oneChangeMs)} | |`);
  out(
    `| publish --dry-run, one article changed | ${ms(l.dryRunMs)} | ${l.rebuildPeakRssMiB.toFixed(0)} MiB (largest of the rebuilds and dry runs) |`,
  );
  out(`(load average at the end: ${os.loadavg()[0]!.toFixed(1)})`);
}

if (only.has('api')) {
  out(
    '\n| Content API (1,000 articles) | server | load | req/s | vs bare | p50 | p99 |\n|---|---|---|---|---|---|---|',
  );
  const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  for (const r of await benchApi())
    out(
      `| ${r.route} | ${r.server} | ${r.mode} | ${r.reqPerSec.toFixed(0)} | ${r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`} | ${ms(r.p50)} ms | ${ms(r.p99)} ms |`,
    );
  out(`(load average at the end: ${os.loadavg()[0]!.toFixed(1)})`);
}

if (only.has('compression')) {
  const c = await benchCompression();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  out(
    "\n| Compressing the 1,000-article build's bodies (CPU in one thread) | article bodies, size | per article | the list, size | the list, CPU |\n|---|---|---|---|---|",
  );
  for (const q of c.qualities)
    out(
      `| ${q.setting} | ${(q.articleRatio * 100).toFixed(1)} % | ${q.msPerArticle.toFixed(2)} ms | ${kb(q.listBytes)} | ${q.listMs.toFixed(1)} ms |`,
    );
  out('\n| Bytes on the wire (1,000-article site) | identity | br | gzip |\n|---|---|---|---|');
  for (const route of ['list', 'article']) {
    const bytes = (coding: string) => kb(c.wire.find((w) => w.route === route && w.coding === coding)!.bytes);
    out(`| ${route} | ${bytes('identity')} | ${bytes('br')} | ${bytes('gzip')} |`);
  }
  out(
    '\n| Saturation, 50 conns, 3 alternating rounds | bare node:http, same bytes: req/s (best) | Quire: req/s (best) | Quire / bare | server CPU per answer (median): bare | Quire |\n|---|---|---|---|---|---|',
  );
  for (const s of c.speed)
    out(
      `| ${s.route}, ${s.coding} | ${s.bare.toFixed(0)} | ${s.quire.toFixed(0)} | ${((s.quire / s.bare) * 100).toFixed(0)} % | ${s.bareCpuUs.toFixed(0)} µs | ${s.quireCpuUs.toFixed(0)} µs |`,
    );
}

if (only.has('lists')) {
  out(
    '\n| Filtered list, 100,000 articles (CPU per request, median) | from the list index | filter and sort every item |\n|---|---|---|',
  );
  for (const r of benchLists())
    out(`| \`${r.query}\` | ${r.indexUs.toFixed(1)} µs | ${(r.scanUs / 1000).toFixed(1)} ms |`);
}

// The delivery fleet on PostgreSQL: in a full run, and with --only fleet.
if (!values.only || only.has('fleet')) {
  const f = await benchFleet();
  out(
    `\n| Delivery fleet on PostgreSQL (20,000 × ${(f.bytes / 1024).toFixed(1)} KB to 20 loopback HTTPS receivers, after ${f.warmUp.toLocaleString('en')} unmeasured), alternating rounds | deliveries/s | bare keep-alive client, same concurrency | share | CPU per delivery: workers / PostgreSQL / receivers | bare client / receivers |\n|---|---|---|---|---|---|`,
  );
  const ms = (v: number) => v.toFixed(2);
  for (const r of f.runs) {
    out(
      `| ${r.workers} × \`quire worker --concurrency 16\` | ${r.quirePerSec.toFixed(0)} | ${r.barePerSec.toFixed(0)} (${16 * r.workers} at once) | ${((r.quirePerSec / r.barePerSec) * 100).toFixed(0)} % | ${ms(r.quireCpu.sender)} / ${ms(r.quireCpu.postgres)} / ${ms(r.quireCpu.receivers)} ms | ${ms(r.bareCpu.sender)} / ${ms(r.bareCpu.receivers)} ms |`,
    );
  }
  out(
    `\n| Database time per delivery (batches of 64) | ms |\n|---|---|\n| claim (takeDue: the first due, SKIP LOCKED, slug leases, lease) | ${f.claimMsPerDelivery.toFixed(3)} |\n| record the attempt (recordAttempts) | ${f.recordMsPerDelivery.toFixed(3)} |`,
  );
}

if (only.has('deliveries')) {
  const d = await benchDeliveries();
  out(
    `\n| Webhook deliveries (1,000 × ${(d.bytes / 1024).toFixed(1)} KB, loopback HTTPS) | per second |\n|---|---|\n| bare keep-alive https.request loop | ${d.barePerSec.toFixed(0)} |\n| Quire outbox → delivery runner → SSRF-safe client | ${d.quirePerSec.toFixed(0)} (${(d.ratio * 100).toFixed(0)} %) |`,
  );
}

if (only.has('page-checks')) {
  out(
    '\n| Live page check after each delivery (100 deliveries, reference site on loopback HTTPS) | site articles (sitemap entries) | verifier CPU per check | requests to the site per check | checks/s, one site |\n|---|---|---|---|---|',
  );
  for (const r of await benchPageChecks())
    out(
      `| robots.txt, sitemap, page; the four checks | ${r.siteArticles.toLocaleString('en')} | ${r.cpuMsPerCheck.toFixed(1)} ms | ${r.requestsPerCheck.toFixed(1)} (${r.byKind.robots} robots.txt, ${r.byKind.sitemap} sitemap, ${r.byKind.page} page) | ${r.checksPerSecond.toFixed(0)} |`,
    );
}

if (only.has('publish')) {
  const p = benchPublishDryRun(largest);
  out(
    `\n| publish --dry-run, 1 of ${p.count} articles changed (CLI, median of 5) | ${p.medianMs.toFixed(0)} ms |\n|---|---|`,
  );
}

if (only.has('edge')) {
  out(
    '\n| Content API, 1,000 articles, loopback, 50 conns (best of 3 alternating rounds) | Node server | Worker under workerd | Worker / Node |\n|---|---|---|---|',
  );
  const show = (l: { reqPerSec: number; p50: number; p99: number }) =>
    `${l.reqPerSec.toFixed(0)} req/s (p50 ${l.p50} ms, p99 ${l.p99} ms)`;
  for (const r of await benchEdge())
    out(`| ${r.request} | ${show(r.node)} | ${show(r.edge)} | ${(r.edge.reqPerSec / r.node.reqPerSec).toFixed(2)}× |`);
}

if (only.has('deploy')) {
  out('\n| `quire deploy` to s3rver on loopback | objects uploaded | skipped | MiB | seconds |\n|---|---|---|---|---|');
  for (const r of await benchDeploy(largest))
    out(`| ${r.run} | ${r.uploaded} | ${r.skipped} | ${r.megabytes.toFixed(1)} | ${r.seconds.toFixed(2)} |`);
}
