// `quire status`: what goes live or expires next, per the build being served (dist/).
import { readManifest } from '../../export/export-files.ts';
import { discoverSites } from '../../content/load-content.ts';
import { DEFAULT_TIMEZONE } from '../../content/model.ts';
import { upcomingChanges } from '../../schedule/upcoming.ts';
import { formatInZone, formatUtc } from '../../schedule/zone-time.ts';
import { isKnownSite, type CliContext } from '../context.ts';
import { withCode } from '../../problems/problem.ts';

export async function runStatus(
  ctx: CliContext,
  opts: { site: string | null; json: boolean; now: number },
): Promise<number> {
  const { app, config, out, err } = ctx;
  if (opts.site !== null && !(await isKnownSite(ctx, opts.site))) return 1;
  const manifest = readManifest(config.distDir);
  if (!manifest) {
    err(withCode(`no build in ${config.distDir} yet: run \`quire build\` (or \`npm start\`) first`, 'BUILD_MISSING'));
    return 1;
  }
  const zones = new Map((await discoverSites(app.content().dir, [])).map((s) => [s.id, s.timezone]));
  const sites =
    opts.site === null
      ? manifest.sites
      : Object.fromEntries(Object.entries(manifest.sites).filter(([id]) => id === opts.site));
  const changes = upcomingChanges(sites, opts.now).map((c) => {
    const timezone = zones.get(c.site) ?? DEFAULT_TIMEZONE;
    return { ...c, timezone, local: formatInZone(Date.parse(c.at), timezone) };
  });
  if (opts.json) {
    out(JSON.stringify(changes));
    return 0;
  }
  if (!changes.length) {
    out(`Nothing scheduled: no article goes live or expires after ${formatUtc(opts.now)}.`);
    return 0;
  }
  const rows = changes.map((c) => [
    formatUtc(Date.parse(c.at)),
    c.timezone === 'UTC' ? '' : c.local,
    c.site,
    c.change === 'goes-live' ? 'goes live' : 'expires',
    c.slug,
  ]);
  const header = ['WHEN (UTC)', 'SITE TIME', 'SITE', 'CHANGE', 'ARTICLE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows])
    out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  return 0;
}
