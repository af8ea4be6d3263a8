// `npm run edge -- --port <n>`: the Content API as the edge Worker, under workerd on this
// machine, serving the current build (dist/) from a local R2 bucket filled by the same deploy as
// `quire deploy`; redeployed when dist/ is rebuilt. Prints its URL.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig } from '../../src/config/config.ts';
import { loadServerSecret } from '../../src/config/server-secret.ts';
import { MANIFEST_FILE } from '../../src/dist/layout.ts';
import { fileIn } from '../../src/dist/local-dist.ts';
import { startLocalEdge } from './local-edge.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8788' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number (0: any free port), not ${values.port}`);
    return 2;
  }
  let config;
  try {
    config = parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const manifestFile = fileIn(config.distDir, MANIFEST_FILE);
  if (!fs.existsSync(manifestFile)) {
    console.error(`no build in ${config.distDir}: run \`npm run build\` first`);
    return 1;
  }
  const edge = await startLocalEdge({ distDir: config.distDir, stateDir: config.stateDir, secret: loadServerSecret(config), port, publicUrl: config.publicUrl, pointerTtlSeconds: 1 });
  const show = async () => {
    const s = await edge.deploy();
    console.log(`deployed build ${s.buildId} to the local bucket: ${s.uploaded} objects uploaded, ${s.skipped} already there`);
  };
  await show();
  console.log(`Quire edge Worker (workerd) listening on ${edge.url}`);
  const onChange = () => void show().catch((err: unknown) => console.error(`redeploy failed: ${err instanceof Error ? err.message : String(err)}`));
  fs.watchFile(manifestFile, { interval: 1000 }, onChange);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  fs.unwatchFile(manifestFile, onChange);
  await edge.close();
  return 0;
}

process.exitCode = await main();
