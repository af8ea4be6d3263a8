// `quire deploy [--dry-run]` (npm run deploy): the current build to S3-compatible storage, for
// the edge Worker (src/edge/). The bucket comes from QUIRE_S3_*, checked before anything is read.
import { ConfigError } from '../../config/config.ts';
import { readManifest } from '../../export/export-files.ts';
import { deploy, edgeKeyGenerations, type DeploySummary } from '../../deploy/deploy.ts';
import { planExport } from '../../deploy/export-plan.ts';
import { keysFileOf } from '../../config/state-layout.ts';
import { readKeyGenerations } from '../../keys/key-generations.ts';
import type { CliContext } from '../context.ts';
import { errorText, ProblemError, withCode } from '../../problems/problem.ts';

export async function runDeploy(
  { config, out, err }: CliContext,
  opts: { dryRun: boolean; keepHours: number; concurrency: number },
): Promise<number> {
  const { bucket, prefix, endpoint, region } = config.s3;
  if (!bucket) {
    const missing = new ConfigError([
      'QUIRE_S3_BUCKET: must be set for `quire deploy` (the bucket the export goes to; see `quire deploy --help`)',
    ]);
    err(withCode(missing.message, missing.code));
    return 2;
  }
  const started = performance.now();
  const manifest = readManifest(config.distDir);
  if (!manifest) {
    err(withCode(`no build in ${config.distDir}: run \`quire build\` first`, 'BUILD_MISSING'));
    return 1;
  }
  // keys.json unreadable is an error here: deploying without it could bring rotated keys back.
  const keyGenerations = edgeKeyGenerations(manifest, readKeyGenerations(keysFileOf(config.stateDir)));
  const plan = planExport(config.distDir, manifest);
  const { openS3Store } = await import('../../deploy/s3-object-store.ts');
  const store = openS3Store({ bucket, prefix, endpoint, region });
  try {
    out(
      `Deploying build ${manifest.buildId} (${plan.objects.size} objects) to ${store.where}${opts.dryRun ? ' — dry run, nothing is written' : ''}`,
    );
    let lastShown = 0;
    const summary = await deploy({
      store,
      plan,
      keyGenerations,
      dryRun: opts.dryRun,
      concurrency: opts.concurrency,
      keepMs: opts.keepHours * 3600_000,
      onProgress: (done, total, bytes) => {
        // A line per 100 objects (and the last): enough to see a long upload move.
        if (done - lastShown >= 100 || done === total) {
          lastShown = done;
          out(`  uploaded ${done}/${total} objects, ${formatBytes(bytes)}`);
        }
      },
    });
    out(summaryLine(summary, performance.now() - started));
    return 0;
  } catch (e) {
    // The storage's failures (bucket, credentials, endpoint) are problems with a fix, not SDK text.
    if (!(e instanceof ProblemError)) throw e;
    err(errorText(e));
    err(
      'Nothing more was deployed; run `quire deploy` again once this is fixed: objects already uploaded are not sent again.',
    );
    return 1;
  } finally {
    store.close();
  }
}

function summaryLine(s: DeploySummary, ms: number): string {
  const verb = s.dryRun ? 'would upload' : 'uploaded';
  const pointer = !s.switched
    ? `build ${s.buildId} was already live`
    : `${s.dryRun ? 'would switch' : 'switched'} current.json ${s.previousBuildId && s.previousBuildId !== s.buildId ? `from build ${s.previousBuildId} ` : ''}to build ${s.buildId}`;
  const pruned = s.prunedBuilds.length
    ? ` (pruned build${s.prunedBuilds.length === 1 ? '' : 's'} ${s.prunedBuilds.join(', ')})`
    : '';
  return `${s.dryRun ? 'Dry run' : 'Deployed'}: ${verb} ${s.uploaded} objects (${formatBytes(s.uploadedBytes)}), skipped ${s.skipped}, removed ${s.removed}${pruned}; ${pointer}; ${(ms / 1000).toFixed(1)} s`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
