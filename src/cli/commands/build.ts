import { buildExport } from '../../compile/build.ts';
import { reportBuild } from '../../app/build-report.ts';
import type { CliContext } from '../context.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';

export async function runBuild({ app, out, err }: CliContext): Promise<number> {
  const settings = app.buildSettings;
  const result = await buildExport(settings);
  reportBuild(result, result.ok ? out : err, problemPathsFrom(settings));
  return result.ok ? 0 : 1;
}
