// A content problem as a report for CI states it: its file relative to a folder (the
// repository's root), with `/` between the parts whatever the system, what to do about it, and a
// fingerprint that follows it from one run to the next (fingerprint.ts).
import path from 'node:path';
import type { ContentIssue, IssueCode } from '../content/issues.ts';
import { fixFor } from '../problems/problem.ts';
import { fingerprintsOf } from './fingerprint.ts';

export interface ReportedPlace {
  /** Relative to the report's root, `/` between the parts; `.` for the root itself. */
  path: string;
  /** From 1. */
  line: number;
  /** From 1, in UTF-16 code units (as SARIF's `utf16CodeUnits`). */
  column: number;
}

export interface ReportedProblem extends ReportedPlace {
  code: IssueCode;
  severity: 'error' | 'warning';
  /** The message, naming the other place a problem involves (a duplicate slug's first article). */
  message: string;
  /** What to do here, when the check says; otherwise null (`fix` says it for every such problem). */
  hint: string | null;
  /** What to do about the code (the problem catalogue's). */
  fix: string;
  other: ReportedPlace | null;
  fingerprint: string;
}

/** The problems in file order, their paths relative to `root`. */
export function reportedProblems(issues: readonly ContentIssue[], root: string): ReportedProblem[] {
  const placed = issues
    .map((i) => ({ issue: i, place: placeOf(i, root), other: i.other ? placeOf(i.other, root) : null }))
    .sort(
      (a, b) =>
        compareText(a.place.path, b.place.path) || a.place.line - b.place.line || a.place.column - b.place.column,
    );
  // By what the check says, not where: the other place moves with edits elsewhere (fingerprint.ts).
  const fingerprints = fingerprintsOf(
    placed.map(({ issue, place }) => ({ code: issue.code, path: place.path, message: issue.message })),
  );
  return placed.map(({ issue, place, other }, index) => ({
    ...place,
    code: issue.code,
    severity: issue.severity,
    message: other ? `${issue.message} (the other: ${other.path}:${other.line}:${other.column})` : issue.message,
    hint: issue.hint ?? null,
    fix: fixFor(issue.code),
    other,
    fingerprint: fingerprints[index]!,
  }));
}

/** By code units: the same order on every machine, whatever its locale. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function placeOf(at: { file: string; line: number; column: number }, root: string): ReportedPlace {
  const relative = path.relative(root, at.file);
  return {
    path: relative === '' ? '.' : relative.split(path.sep).join('/'),
    line: Math.max(1, at.line),
    column: Math.max(1, at.column),
  };
}
