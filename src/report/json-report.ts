// Problems as data, for scripts: every field of a reported problem, and the counts.
import type { ReportedProblem } from './reported-problem.ts';

export interface JsonReport {
  errors: number;
  warnings: number;
  problems: ReportedProblem[];
}

export function jsonReport(problems: readonly ReportedProblem[]): JsonReport {
  const errors = problems.filter((p) => p.severity === 'error').length;
  return { errors, warnings: problems.length - errors, problems: [...problems] };
}
