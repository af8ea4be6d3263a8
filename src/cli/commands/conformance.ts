// `quire conformance <site> [--url <webhook-url>] [--json]`: the conformance check of the site's
// receiver (src/integration/), printed as a table of rules, each problem with its code and fix.
// Exit status 1 when a rule failed, so a site owner's CI can run it; warnings alone exit 0.
import { readManifest } from '../../export/export-files.ts';
import { checkConformance } from '../../integration/check-conformance.ts';
import type { RuleResult } from '../../integration/conformance/report.ts';
import { withCode } from '../../problems/problem.ts';
import { printable, printableText } from '../../text/printable.ts';
import { isKnownSite, refuseCommandLine, type CliContext } from '../context.ts';

const INDENT = ' '.repeat(21);
const mark = (r: RuleResult) => (!r.ok ? 'FAIL' : r.warning ? 'WARN' : 'pass');

export async function runConformanceCheck(
  ctx: CliContext,
  opts: { site: string | undefined; url: string | null; json: boolean },
): Promise<number> {
  if (!opts.site) return refuseCommandLine(ctx.err, 'usage: quire conformance <site> [--url <webhook-url>] [--json]');
  if (!(await isKnownSite(ctx, opts.site))) return 1;
  // Where the site's pages are when the receiver does not say: site.yaml's, as the last build has it.
  const built = readManifest(ctx.config.distDir)?.sites[opts.site];
  const r = await checkConformance(
    {
      publishing: ctx.app.delivery(),
      pageClient: ctx.app.verifyClient(),
      allowPrivate: ctx.config.allowPrivateTargets,
    },
    {
      siteId: opts.site,
      url: opts.url ?? undefined,
      site: built ? { url: built.url, articlePath: built.articlePath } : null,
    },
  );
  if (!r.ok) {
    ctx.err(withCode(r.message, r.code));
    return 1;
  }
  const { report } = r;
  if (opts.json) {
    // Receivers' words are in the details: escaped as JSON allows, so no terminal acts on them.
    ctx.out(printableText(JSON.stringify(report, null, 2)));
    return report.ok ? 0 : 1;
  }
  ctx.out(`Conformance of the receiver of ${report.site}: ${printable(report.webhookUrl)}`);
  ctx.out(`Test article: ${report.testSlug}\n`);
  for (const rule of report.rules) {
    ctx.out(`  ${mark(rule).padEnd(5)} ${rule.id.padEnd(13)} ${printable(rule.detail)}`);
    if (rule.code) ctx.out(`${INDENT}[${rule.code}] fix: ${printable(rule.fix ?? '')}`);
  }
  ctx.out(`\n${printable(report.cleanup)}.`);
  ctx.out(report.summary);
  return report.ok ? 0 : 1;
}
