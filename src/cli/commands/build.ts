import { buildDist } from '../../build/build.ts';
import { reportBuild } from '../report.ts';
import type { CliContext } from '../context.ts';

export async function runBuild({ app, out, err }: CliContext): Promise<number> {
  const result = await buildDist(app.buildSettings);
  reportBuild(result, result.ok ? out : err);
  return result.ok ? 0 : 1;
}
