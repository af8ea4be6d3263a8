// How build results read on a terminal.
import { formatIssue } from '../content/issues.ts';
import type { BuildResult } from '../build/build.ts';
import { printable } from '../text/printable.ts';

/** The build's outcome and its problems, their paths shown from `pathsFrom` (see problemPathsFrom). */
export function reportBuild(result: BuildResult, out: (line: string) => void, pathsFrom: string = process.cwd()): void {
  if (result.recovered) out(`dist/ was missing (a build was stopped while swapping it in): restored it from ${result.recovered}`);
  // A file name or a value quoted from content may hold line breaks: escaped, so it cannot
  // forge a line of the report (other control characters are escaped for every line printed).
  for (const i of result.issues) out(formatIssue({ ...i, file: printable(i.file), message: printable(i.message), ...(i.hint ? { hint: printable(i.hint) } : {}) }, pathsFrom));
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
