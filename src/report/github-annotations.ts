// Problems as GitHub Actions workflow commands, which GitHub shows on the pull request's lines:
// `::error file=<path>,line=<n>,col=<n>,title=<CODE>::<message>%0A<what to do>`. A file name and
// a message are content, so neither may end the command or start another: data escapes `%`, CR
// and LF (GitHub's runner reads them back), and a property also `:` and `,`, which separate
// properties. GitHub shows 10 errors and 10 warnings of a step on the lines: errors come first.
import type { ReportedProblem } from './reported-problem.ts';

/** One workflow command per problem, errors first, each in file order. */
export function githubAnnotations(problems: readonly ReportedProblem[]): string[] {
  const ordered = [
    ...problems.filter((p) => p.severity === 'error'),
    ...problems.filter((p) => p.severity !== 'error'),
  ];
  return ordered.map((p) => {
    const properties = [
      `file=${escapeProperty(p.path)}`,
      `line=${p.line}`,
      `col=${p.column}`,
      `title=${escapeProperty(p.code)}`,
    ].join(',');
    return `::${p.severity} ${properties}::${escapeData(`${p.message}\n${p.hint ?? p.fix}`)}`;
  });
}

/** What GitHub's runner reads back as the text it stood for. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
