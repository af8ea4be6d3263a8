// The formats `quire check` writes its problems in, one module each; text is the terminal's
// (src/app/build-report.ts), the others are what CI systems read.
import { githubAnnotations } from './github-annotations.ts';
import { gitlabCodeQuality } from './gitlab-code-quality.ts';
import { jsonReport } from './json-report.ts';
import type { ReportedProblem } from './reported-problem.ts';
import { sarifLog, type SarifTool } from './sarif-log.ts';

export const REPORT_FORMATS = ['text', 'github', 'gitlab', 'sarif', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export type MachineFormat = Exclude<ReportFormat, 'text'>;

export const isReportFormat = (name: string): name is ReportFormat =>
  (REPORT_FORMATS as readonly string[]).includes(name);

/** The whole report in `format`, ending with a line break. */
export function machineReport(format: MachineFormat, problems: readonly ReportedProblem[], tool: SarifTool): string {
  switch (format) {
    case 'github':
      return githubAnnotations(problems)
        .map((line) => `${line}\n`)
        .join('');
    case 'gitlab':
      return jsonText(gitlabCodeQuality(problems));
    case 'sarif':
      return jsonText(sarifLog(problems, tool));
    case 'json':
      return jsonText(jsonReport(problems));
  }
}

const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
