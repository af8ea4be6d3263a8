// `quire edge [--port <n>]` (npm run edge): the Content API as the edge Worker, under workerd on
// this machine, serving the current build (dist/) from a local R2 bucket filled by the same
// deploy as `quire deploy`; deployed again when dist/ is rebuilt. Prints its URL.
// `quire edge --init`: a wrangler.toml here that deploys the Worker of the installed Quire.
import fs from 'node:fs';
import path from 'node:path';
import { loadServerSecret } from '../../config/server-secret.ts';
import { startLocalEdge } from '../../deploy/local-edge.ts';
import { contentRepoWranglerToml } from '../../deploy/worker-bundle.ts';
import { MANIFEST_FILE } from '../../export/layout.ts';
import { fileIn } from '../../export/export-files.ts';
import { ProblemError, withCode } from '../../problems/problem.ts';
import type { CliContext } from '../context.ts';

export async function runEdge({ config, out, err }: CliContext, opts: { port: number }): Promise<number> {
  const manifestFile = fileIn(config.distDir, MANIFEST_FILE);
  if (!fs.existsSync(manifestFile)) {
    err(`no build in ${config.distDir}: run \`quire build\` first`);
    return 1;
  }
  let edge: Awaited<ReturnType<typeof startLocalEdge>>;
  try {
    edge = await startLocalEdge({
      distDir: config.distDir,
      stateDir: config.stateDir,
      secret: loadServerSecret(config),
      port: opts.port,
      publicUrl: config.publicUrl,
      pointerTtlSeconds: 1,
    });
  } catch (e) {
    if (e instanceof ProblemError && e.code === 'EDGE_RUNTIME_MISSING') {
      err(withCode(`quire edge: ${e.message}`, e.code));
      return 1;
    }
    throw e;
  }
  const show = async () => {
    const s = await edge.deploy();
    out(`deployed build ${s.buildId} to the local bucket: ${s.uploaded} objects uploaded, ${s.skipped} already there`);
  };
  await show();
  out(`Quire edge Worker (workerd) listening on ${edge.url}`);
  const onChange = () =>
    void show().catch((e: unknown) => err(`redeploy failed: ${e instanceof Error ? e.message : String(e)}`));
  fs.watchFile(manifestFile, { interval: 1000 }, onChange);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  fs.unwatchFile(manifestFile, onChange);
  await edge.close();
  return 0;
}

/** Writes wrangler.toml into `dir` (never over one), and says how to deploy. */
export function runEdgeInit({ out, err }: Pick<CliContext, 'out' | 'err'>, dir: string): number {
  const file = path.join(dir, 'wrangler.toml');
  try {
    fs.writeFileSync(file, contentRepoWranglerToml(dir), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    err(`quire edge --init: ${file} is there already; nothing was written (it is never overwritten).`);
    return 1;
  }
  const main = /^main = "([^"]+)"/m.exec(fs.readFileSync(file, 'utf8'))![1];
  out(`  made   wrangler.toml (main = "${main}", the Worker of the Quire installed here)`);
  out('');
  out('Deploy the Worker (Quire\'s docs/edge.md, "The API at the edge"):');
  out('  1. set bucket_name in wrangler.toml to the bucket `quire deploy` fills (QUIRE_S3_BUCKET)');
  out(
    '  2. npx wrangler secret put QUIRE_SECRET    the secret your keys were made with (.quire/secret if you never set one)',
  );
  out('  3. npx wrangler deploy');
  return 0;
}
