// What `quire check` says: the problems as text (as a build prints them, paths from where Quire
// runs) with a summary, or in a CI format (src/report/), paths from the repository's root.
import { reportedProblems } from '../report/reported-problem.ts';
import { machineReport, type MachineFormat } from '../report/report-formats.ts';
import { issueLines } from './build-report.ts';
import type { ContentCheck } from './check-content.ts';
import { PACKAGE_VERSION } from './package-version.ts';

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The problems and a last line that counts them. */
export function checkTextLines(check: ContentCheck, pathsFrom: string): string[] {
  return [...issueLines(check.issues, pathsFrom), checkSummary(check)];
}

/** `Checked 12 articles in 2 sites: 1 error, 2 warnings (nothing was written)`. */
export function checkSummary(check: ContentCheck): string {
  const errors = check.issues.filter((i) => i.severity === 'error').length;
  const warnings = check.issues.length - errors;
  const found = errors || warnings ? `${count(errors, 'error')}, ${count(warnings, 'warning')}` : 'no problems';
  return `Checked ${count(check.articles, 'article')} in ${count(check.sites, 'site')}: ${found} (nothing was written)`;
}

/** The report in a CI format; files are named from the repository's root, else from `cwd`. */
export function checkMachineReport(check: ContentCheck, format: MachineFormat, cwd: string): string {
  const problems = reportedProblems(check.issues, check.repositoryRoot ?? cwd);
  return machineReport(format, problems, { name: 'Quire', version: PACKAGE_VERSION });
}

export const checkFailed = (check: ContentCheck): boolean => check.issues.some((i) => i.severity === 'error');
