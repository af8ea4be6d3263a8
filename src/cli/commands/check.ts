// `quire check [--format text|github|gitlab|sarif|json] [--output <file>]`.
import fs from 'node:fs';
import { checkContent } from '../../app/check-content.ts';
import { checkFailed, checkMachineReport, checkSummary, checkTextLines } from '../../app/check-report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { closestName } from '../../text/closest-name.ts';
import { printableText } from '../../text/printable.ts';
import { isReportFormat, REPORT_FORMATS } from '../../report/report-formats.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';

export async function runCheck(ctx: CliContext, opts: { format: string; output: string | null }): Promise<number> {
  const { app, out, err } = ctx;
  const { format, output } = opts;
  if (!isReportFormat(format)) {
    const near = closestName(format, REPORT_FORMATS);
    return refuseCommandLine(
      err,
      `quire check: unknown format "${format}"${near ? ` (did you mean "${near}"?)` : ''}; one of ${REPORT_FORMATS.join(', ')}`,
    );
  }
  const settings = app.buildSettings;
  const check = await checkContent(settings);
  const text = checkTextLines(check, problemPathsFrom(settings));
  const status = checkFailed(check) ? 1 : 0;
  if (format === 'text' && output === null) {
    for (const line of text) out(line);
    return status;
  }
  const report = format === 'text' ? `${text.join('\n')}\n` : checkMachineReport(check, format, process.cwd());
  if (output === null) {
    // The report alone on stdout, for the tool that reads it (no problem, no workflow command).
    if (report !== '') out(report.replace(/\n$/, ''));
    err(checkSummary(check));
    return status;
  }
  // Control characters from content escaped as on a terminal: inside JSON strings the same text.
  fs.writeFileSync(output, printableText(report));
  for (const line of text) out(line);
  out(`Report (${format}) written to ${output}`);
  return status;
}
