// `quire start` and `quire dev`: build, serve the API and the admin app, deliver queued webhooks,
// and (dev) rebuild on change.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { Hono } from 'hono';
import { createAdminApp, renderAdminRefusal } from '../../admin/admin-app.tsx';
import { printable } from '../../content/issues.ts';
import { buildDist, createBuildCaches, NO_BUILD_FACTS, type BuildFacts, type BuildResult } from '../../build/build.ts';
import { createApiApp } from '../../api/app.ts';
import { createDistStore } from '../../api/dist-store.ts';
import { listen } from '../../server/serve.ts';
import { connectionCap, DEFAULT_CONNECTION_LIMITS, openFileLimit } from '../../server/connection-limits.ts';
import { reportBuild } from '../report.ts';
import { startDeliveryWorker } from '../../delivery/delivery-worker.ts';
import { StateStoreError } from '../../store/database.ts';
import { createKeyringFor, openPublishing, type CliContext } from '../context.ts';
import { createServerObservability } from '../../observe/server-observability.ts';
import { createReadiness, type WorkerHealth } from '../../observe/readiness.ts';

/** The worker's health when the state store could not be opened at start (no worker runs). */
const NO_STATE_STORE: WorkerHealth = { running: false, error: 'the state store could not be opened at start' };

export async function runServer(ctx: CliContext, opts: { watch: boolean }): Promise<number> {
  const { config, out, err } = ctx;
  const { keyring, generations } = createKeyringFor(config);
  const caches = createBuildCaches(config.stateDir);
  // What the admin's Articles tab shows: the last build's facts, never content read per request.
  let lastBuild: BuildFacts = NO_BUILD_FACTS;
  let observed: ReturnType<typeof createServerObservability> | null = null;
  // A build that fails, even by throwing, leaves the last good dist/ served and this process up.
  const build = async (): Promise<BuildResult | null> => {
    try {
      const result = await buildDist(config, caches);
      reportBuild(result, result.ok ? out : err);
      observed?.metrics?.observeBuild(result.ok ? 'ok' : 'failed');
      lastBuild = { sites: result.loaded, issues: result.issues };
      return result;
    } catch (cause) {
      observed?.metrics?.observeBuild('failed');
      err(printable(`Build failed: ${cause instanceof Error ? cause.message : String(cause)}`));
      return null;
    }
  };
  const first = await build();
  const store = createDistStore(config.distDir);
  store.reload();
  if (!store.current()) {
    err('No build to serve: fix the problems above and start again.');
    return 1;
  }
  if (!first?.ok) err('Serving the last good build.');
  // The read-only API needs only dist/ and the keys: a broken delivery state turns webhooks and
  // the Publishing app off, with the file named, and the API keeps serving.
  const publishing = openPublishingOrReport(ctx);
  observed = createServerObservability({ format: config.logFormat, metrics: config.metrics, pending: publishing ? () => publishing.store.outbox.pendingSummary() : null });
  observed.metrics?.observeBuild(first?.ok ? 'ok' : 'failed');
  const log = observed.logger.message;
  if (publishing) {
    publishing.observeAttempt = observed.observeAttempt;
    publishing.log = log;
  }
  const worker = publishing ? startDeliveryWorker(publishing) : null;
  const adminToken = config.adminToken ?? randomBytes(24).toString('base64url');
  let base = config.publicUrl;
  const admin = !publishing ? publishingUnavailable() : createAdminApp({
    adminToken,
    publicUrl: () => base,
    contentDir: config.contentDir,
    distDir: config.distDir,
    dist: store,
    keyring,
    rotateKey: (siteId) => generations.rotate(siteId),
    publishing,
    allowPrivate: config.allowPrivateTargets,
    lastBuild: () => lastBuild,
    wakeDeliveries: () => worker?.wake(),
    log,
  });
  const app = createApiApp({
    store,
    keyring,
    publicUrl: config.publicUrl,
    log,
    mounts: [{ path: '/admin', app: admin, renderError: renderAdminRefusal }],
    maxBodyBytes: config.maxBodyBytes,
    readiness: createReadiness({ buildServed: () => store.current() !== null, worker: () => worker?.health() ?? NO_STATE_STORE }),
    metrics: observed.metrics,
    noteSite: observed.requests.noteSite,
  });
  const fileLimit = openFileLimit();
  const limits = {
    ...DEFAULT_CONNECTION_LIMITS,
    maxConnections: connectionCap(config.maxConnections, fileLimit),
    maxPerClient: config.maxConnectionsPerClient,
    // A connection is silent while the admin's Test connection waits for one delivery attempt.
    idleTimeoutMs: Math.max(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs, config.webhookTimeoutMs + 20_000),
  };
  if (config.maxConnections !== null && limits.maxConnections < config.maxConnections) {
    err(`QUIRE_MAX_CONNECTIONS lowered to ${limits.maxConnections}: the open-file limit is ${fileLimit}.`);
  }
  const server = await listen(app, config.port, config.host, limits, observed.requests.attach);
  const stopWatchingDist = store.watch(() => out('Loaded the new build.'));
  // A keys.json that stops reading keeps the generations held now (never reverts them) and is reported.
  const keyTimer = setInterval(() => generations.refresh((e) => err(e.message)), 1000);
  keyTimer.unref();

  base = config.publicUrlExplicit ? config.publicUrl : `http://localhost:${server.port}`;
  out(`\nQuire Content API on ${base}/v1  (OpenAPI: ${base}/openapi.json)`);
  out(`Limits: ${limits.maxConnections} connections, ${limits.maxPerClient || 'no cap'} per client; request bodies up to ${config.maxBodyBytes} bytes\n`);
  const snapshot = store.current()!;
  for (const [id, site] of snapshot.sites) {
    out(`  ${id.padEnd(16)} ${site.summary.name} — ${site.articles.size} published`);
    out(`  ${''.padEnd(16)} key: ${keyring.keyFor(id)}`);
  }
  const [firstSite] = snapshot.sites.keys();
  if (firstSite) out(`\nTry:\n  curl -H "Authorization: Bearer ${keyring.keyFor(firstSite)}" ${base}/v1/articles\n`);
  // The token goes in the fragment: browsers never send it to the server, so it reaches no log.
  if (!publishing) out(`Publishing app: unavailable (the state store cannot be read; see above)\n`);
  else out(config.adminToken ? `Publishing app: ${base}/admin (sign in with QUIRE_ADMIN_TOKEN)\n` : `Publishing app: ${base}/admin/sign-in#token=${adminToken}\n`);

  let watcher: FSWatcher | null = null;
  if (opts.watch) {
    let running: Promise<void> | null = null;
    let again = false;
    const rebuild = async () => {
      if (running) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          const result = await build();
          if (result?.ok && store.reload()) out('Serving the new build.');
          if (!result?.ok) err('The last good build stays up.');
        } while (again);
      })();
      await running;
      running = null;
    };
    let timer: NodeJS.Timeout | null = null;
    // Links are never followed: one in the content tree is a problem the build reports, not more to watch.
    watcher = chokidar.watch(config.contentDir, { ignoreInitial: true, followSymlinks: false, ignored: (p) => /(^|[/\\])\./.test(p.slice(config.contentDir.length)) });
    watcher.on('all', () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void rebuild(), 80);
    });
    const w = watcher;
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    out(`Watching ${path.relative(process.cwd(), config.contentDir) || '.'} for changes.`);
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  stopWatchingDist();
  await watcher?.close();
  await server.close();
  await worker?.stop();
  publishing?.close();
  observed.logger.flush();
  return 0;
}

/** The delivery state, or null (reported) when its store cannot be read. */
function openPublishingOrReport(ctx: CliContext): ReturnType<typeof openPublishing> | null {
  try {
    return openPublishing(ctx);
  } catch (e) {
    if (!(e instanceof StateStoreError)) throw e;
    ctx.err(e.message);
    ctx.err('The Content API is served; webhook delivery and the Publishing app are off until the state store reads again (fix it, then restart).');
    return null;
  }
}

/** /admin while the state store cannot be read: says so, without details (they are in the server's log). */
function publishingUnavailable(): Hono {
  const app = new Hono();
  app.all('*', (c) => c.text('The Publishing app is unavailable: the state store cannot be read. The server log names the file and what to do.', 503, { 'Cache-Control': 'no-store' }));
  return app;
}
