// Problems as a GitLab Code Quality report (`artifacts:reports:codequality`), which GitLab shows
// in the merge request: a JSON array of the fields its documentation names ("Code Quality report
// format", a subset of the Code Climate spec). An error is `major` and a warning `minor`, as
// linters' GitLab formatters commonly map them, so errors rank first in the widget.
import type { ReportedProblem } from './reported-problem.ts';

export interface CodeQualityIssue {
  description: string;
  check_name: string;
  fingerprint: string;
  severity: 'info' | 'minor' | 'major' | 'critical' | 'blocker';
  location: { path: string; lines: { begin: number } };
}

export function gitlabCodeQuality(problems: readonly ReportedProblem[]): CodeQualityIssue[] {
  return problems.map((p) => ({
    description: p.hint ? `${p.message} (hint: ${p.hint})` : p.message,
    check_name: p.code,
    fingerprint: p.fingerprint,
    severity: p.severity === 'error' ? 'major' : 'minor',
    location: { path: p.path, lines: { begin: p.line } },
  }));
}
