// A server's builds: each reported (a followed checkout's problem paths as in its repository,
// content/…), counted in the metrics, and its facts kept for the admin's Articles tab, which
// never reads content while answering. A build that fails, even by throwing, leaves the last
// good dist/ served and the process up.
import { buildExport, type BuildCaches, type BuildResult, type BuildSettings } from '../compile/build.ts';
import { NO_CONTENT_FACTS, type ContentFacts } from '../content/load-content.ts';
import { problemPathsFrom } from '../follow/followed-content.ts';
import type { Metrics } from '../observe/metrics.ts';
import { errorText } from '../problems/problem.ts';
import { printable } from '../text/printable.ts';
import { reportBuild } from './build-report.ts';
import type { Output } from './output.ts';

export interface ServerBuilds {
  /** Builds dist/ now; null when the build threw (told, and counted as failed). */
  build(): Promise<BuildResult | null>;
  /** Reports and keeps a build made elsewhere (a followed commit's publish). */
  note(result: BuildResult): void;
  /** The last build's facts. */
  lastBuild(): ContentFacts;
}

export function createServerBuilds({
  settings,
  caches,
  metrics,
  output,
}: {
  settings: () => BuildSettings;
  caches: BuildCaches;
  metrics: Metrics | null;
  output: Output;
}): ServerBuilds {
  const { out, err } = output;
  let last: ContentFacts = NO_CONTENT_FACTS;
  const note = (result: BuildResult) => {
    reportBuild(result, result.ok ? out : err, problemPathsFrom(settings()));
    metrics?.observeBuild(result.ok ? 'ok' : 'failed');
    last = { sites: result.loaded, issues: result.issues };
  };
  return {
    async build() {
      try {
        const result = await buildExport(settings(), caches);
        note(result);
        return result;
      } catch (cause) {
        metrics?.observeBuild('failed');
        err(printable(`Build failed: ${errorText(cause)}`));
        return null;
      }
    },
    note,
    lastBuild: () => last,
  };
}
