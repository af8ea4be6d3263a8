// How build results read on a terminal.
import { formatIssue } from '../content/issues.ts';
import type { BuildResult } from '../build/build.ts';

export function reportBuild(result: BuildResult, out: (line: string) => void): void {
  for (const i of result.issues) out(formatIssue(i));
  const errors = result.issues.filter((i) => i.severity === 'error').length;
  const warnings = result.issues.length - errors;
  const s = result.stats;
  if (!result.ok) {
    out(`\nBuild failed: ${errors} error${errors === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}. dist/ was left as it was.`);
    return;
  }
  const sites = result.sites.length;
  out(
    `Built ${s.published} published article${s.published === 1 ? '' : 's'} (${s.articles - s.published} draft${s.articles - s.published === 1 ? '' : 's'}) in ${sites} site${sites === 1 ? '' : 's'}: ` +
      `${s.rendered} rendered, ${s.cached} from cache, ${Math.round(s.ms)} ms${result.written ? '' : ' — no change, dist/ kept'}` +
      (warnings ? `; ${warnings} warning${warnings === 1 ? '' : 's'}` : ''),
  );
}
