// How build results read on a terminal.
import { formatIssue, type ContentIssue } from '../content/issues.ts';
import type { BuildResult } from '../compile/build.ts';
import type { Manifest } from '../export/manifest.ts';
import { visibilityAt, type Visibility } from '../schedule/windows.ts';
import { printable } from '../text/printable.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The built published articles by what they are at `now`: live, scheduled (publishedAt ahead), expired. */
function windowCounts(manifest: Manifest | null, now: number): Record<Visibility, number> {
  const counts = { live: 0, scheduled: 0, expired: 0 };
  for (const site of Object.values(manifest?.sites ?? {})) {
    for (const a of Object.values(site.articles)) counts[visibilityAt(a, now)]++;
  }
  return counts;
}

/**
 * Each problem as `path:line:col  message  [CODE]` and its hint, paths shown from `pathsFrom`. A
 * file name or a value quoted from content may hold line breaks: escaped, so it cannot forge a
 * line of the report (other control characters are escaped for every line printed).
 */
export function issueLines(issues: readonly ContentIssue[], pathsFrom: string): string[] {
  return issues.map((i) =>
    formatIssue(
      {
        ...i,
        file: printable(i.file),
        message: printable(i.message),
        ...(i.hint ? { hint: printable(i.hint) } : {}),
      },
      pathsFrom,
    ),
  );
}

/** The build's outcome and its problems, their paths shown from `pathsFrom` (see problemPathsFrom). */
export function reportBuild(
  result: BuildResult,
  out: (line: string) => void,
  pathsFrom: string = process.cwd(),
  now = Date.now(),
): void {
  if (result.recovered)
    out(`dist/ was missing (a build was stopped while swapping it in): restored it from ${result.recovered}`);
  for (const line of issueLines(result.issues, pathsFrom)) out(line);
  const errors = result.issues.filter((i) => i.severity === 'error').length;
  const warnings = result.issues.length - errors;
  const s = result.stats;
  if (!result.ok) {
    out(
      `\nBuild failed: ${errors} error${errors === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}. dist/ was left as it was.`,
    );
    return;
  }
  const sites = result.sites.length;
  // "Published" would count scheduled articles, which no reader sees yet: each is called what it is now.
  const w = windowCounts(result.manifest, now);
  const kinds = [
    `${w.live} live`,
    w.scheduled ? `${w.scheduled} scheduled` : null,
    w.expired ? `${w.expired} expired` : null,
    plural(s.articles - s.published, 'draft'),
  ];
  out(
    `Built ${plural(s.articles, 'article')} (${kinds.filter((k) => k !== null).join(', ')}) in ${plural(sites, 'site')}: ` +
      `${s.rendered} rendered, ${s.cached} from cache, ${Math.round(s.ms)} ms${result.written ? '' : ' — no change, dist/ kept'}` +
      (warnings ? `; ${warnings} warning${warnings === 1 ? '' : 's'}` : ''),
  );
}
