// `quire verify <site> [--url <base>] [--slug <s>]… [--json]`: verify_integration as a table.
import { loadLocalSnapshot } from '../../snapshot/local-snapshot.ts';
import { buildExport } from '../../compile/build.ts';
import { reportBuild } from '../../app/build-report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { verifySite } from '../../integration/verify-site.ts';
import { isKnownSite, refuseCommandLine, type CliContext } from '../context.ts';
import { printable } from '../../text/printable.ts';
import { withCode } from '../../problems/problem.ts';

const MARK: Record<string, string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL', error: 'ERROR', skipped: 'skip' };

export async function runVerify(
  ctx: CliContext,
  opts: { site: string | undefined; url: string | null; slugs: string[]; json: boolean },
): Promise<number> {
  if (!opts.site) {
    return refuseCommandLine(ctx.err, 'usage: quire verify <site> [--url <base-url>] [--slug <slug>]… [--json]');
  }
  if (!(await isKnownSite(ctx, opts.site))) return 1;
  // The checks compare the site with what Quire built; with no build of this site yet, build it.
  // (An existing build is kept: it is what the receiver was sent, newer edits may not be.)
  let snapshot = loadLocalSnapshot(ctx.config.distDir);
  if (!snapshot?.sites.has(opts.site)) {
    const settings = ctx.app.buildSettings;
    const build = await buildExport(settings);
    if (!build.ok) {
      reportBuild(build, ctx.err, problemPathsFrom(settings));
      ctx.err('Not verified: the content does not build.');
      return 1;
    }
    snapshot = loadLocalSnapshot(ctx.config.distDir);
  }
  // The state store for receivers' reply URLs; the client that fetches the site's pages.
  const r = await verifySite(
    { snapshot, outbox: ctx.app.state().outbox, client: ctx.app.verifyClient() },
    { siteId: opts.site, baseUrl: opts.url ?? undefined, slugs: opts.slugs },
  );
  if (!r.ok) {
    ctx.err(withCode(r.message, r.code));
    return 1;
  }
  const { report } = r;
  if (opts.json) {
    ctx.out(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  }
  for (const a of report.articles) {
    ctx.out(
      `\n${a.slug}  ${printable(a.url)}${a.finalUrl && a.finalUrl !== a.url ? `  → ${printable(a.finalUrl)}` : ''}`,
    );
    for (const c of a.checks) {
      ctx.out(`  ${MARK[c.status]!.padEnd(5)} ${c.id.padEnd(9)} ${c.code.padEnd(24)} ${printable(c.message)}`);
      if (c.status === 'fail' || c.status === 'error') {
        if (c.expected !== null) ctx.out(`${' '.repeat(42)}expected: ${printable(c.expected)}`);
        if (c.actual !== null) ctx.out(`${' '.repeat(42)}actual:   ${printable(c.actual)}`);
        if (c.fix) ctx.out(`${' '.repeat(42)}fix: ${printable(c.fix)}`);
      }
    }
  }
  ctx.out(`\n${report.summary}${r.capped ? ` (${r.capped} more not checked: pass --slug to choose)` : ''}`);
  return report.ok ? 0 : 1;
}
