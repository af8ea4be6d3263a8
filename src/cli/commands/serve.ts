// `quire start` and `quire dev`: build, serve the API and the admin app, deliver queued webhooks,
// and (dev) rebuild on change.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import chokidar from 'chokidar';
import { Hono } from 'hono';
import { createAdminApp, renderAdminRefusal } from '../../admin/admin-app.tsx';
import { printable } from '../../text/printable.ts';
import { buildExport, createBuildCaches, type BuildResult } from '../../compile/build.ts';
import { NO_CONTENT_FACTS, type ContentFacts } from '../../content/load-content.ts';
import { createServerRouter } from '../../app/server-router.ts';
import { openListener } from '../../server/serve.ts';
import { connectionCap, DEFAULT_CONNECTION_LIMITS, openFileLimit } from '../../server/connection-limits.ts';
import { allowedHosts, allowedHostsOnly, describeAllowedHosts } from '../../server/host-check.ts';
import { reportBuild } from '../../app/build-report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { startDeliveryWorker } from '../../delivery/delivery-worker.ts';
import { StateDatabaseError, StateStoreError } from '../../store/state-store.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';
import type { DeliveryDeps } from '../../delivery/delivery-runner.ts';
import { createServerObservability } from '../../observe/server-observability.ts';
import { routePattern } from '../../api/routes.ts';
import { createFollowing, followedBranch, followedContentDir, planFollow, syncBeforeStart, type FollowArgs } from './follow.ts';
import { displayUrl } from '../../follow/follow-source.ts';
import type { TrustProxy } from '../../config/trust-proxy.ts';
import { createReadiness, type WorkerHealth } from '../../observe/readiness.ts';
import { timedReader } from '../../snapshot/timed-view.ts';
import { startChangeTimer } from '../../schedule/change-timer.ts';
import { recordServedChanges, type FeedRecording } from '../../publish/served-changes.ts';
import { forgetServedBuild, recordServedBuild } from '../../snapshot/served-build.ts';
import { servedForOtherUrlMessage } from '../../snapshot/build-public-url.ts';
import { errorText } from '../../problems/problem.ts';

/** The worker's health when the state store could not be opened at start (no worker runs). */
const NO_STATE_STORE: WorkerHealth = { running: false, error: 'the state store could not be opened at start' };

export async function runServer(ctx: CliContext, opts: { watch: boolean; follow?: FollowArgs }): Promise<number> {
  const { app, config, out, err } = ctx;
  const follow = opts.follow ? planFollow(ctx, opts.follow) : null;
  if (typeof follow === 'string') {
    return refuseCommandLine(err, `quire start: ${follow}`);
  }
  // Following a repository, the content is its checkout's, brought up to date before the first build.
  const checkedOut = follow ? await syncBeforeStart(ctx, follow) : true;
  const buildSettings = () => (follow ? app.buildSettingsFor(followedContentDir(follow)) : app.buildSettings);
  const { keyring, generations } = await app.keys(follow ? followedContentDir(follow) : undefined);
  const caches = createBuildCaches(config.stateDir);
  // The read-only API needs only dist/ and the keys: a broken delivery state turns webhooks and
  // the Publishing app off, with the file named, and the API keeps serving.
  const publishing = await openDeliveryOrReport(ctx);
  const observed = createServerObservability({ format: config.logFormat, metrics: config.metrics, pending: publishing ? () => publishing.store.outbox.pendingSummary() : null, routePattern });
  app.onClose(() => observed.logger.flush());
  const log = observed.logger.message;
  if (publishing) {
    publishing.observeAttempt = observed.observeAttempt;
    publishing.log = log;
  }
  const fileLimit = openFileLimit();
  const limits = {
    ...DEFAULT_CONNECTION_LIMITS,
    maxConnections: connectionCap(config.maxConnections, fileLimit),
    maxPerClient: config.maxConnectionsPerClient,
    trustProxy: config.trustProxy,
    // A connection is silent while the admin's Test connection waits for one delivery attempt.
    idleTimeoutMs: Math.max(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs, config.webhookTimeoutMs + 20_000),
  };
  if (config.maxConnections !== null && limits.maxConnections < config.maxConnections) {
    err(`QUIRE_MAX_CONNECTIONS lowered to ${limits.maxConnections}: the open-file limit is ${fileLimit}.`);
  }
  // Listen before the first build: the build writes the public URL into image URLs, and with
  // PORT=0 the port in it is known only now. Requests wait for the first build to be served.
  const server = await openListener(config.port, config.host, limits, observed.requests.attach);
  app.onClose(() => server.close());
  app.listening(server.port);

  // What the admin's Articles tab shows: the last build's facts, never content read per request.
  let lastBuild: ContentFacts = NO_CONTENT_FACTS;
  const noteBuild = (result: BuildResult) => {
    // Paths in a followed checkout read as in the repository (content/…), not in the state dir.
    reportBuild(result, result.ok ? out : err, problemPathsFrom(buildSettings()));
    observed.metrics?.observeBuild(result.ok ? 'ok' : 'failed');
    lastBuild = { sites: result.loaded, issues: result.issues };
  };
  // A build that fails, even by throwing, leaves the last good dist/ served and this process up.
  const build = async (): Promise<BuildResult | null> => {
    try {
      const result = await buildExport(buildSettings(), caches);
      noteBuild(result);
      return result;
    } catch (cause) {
      observed.metrics?.observeBuild('failed');
      err(printable(`Build failed: ${errorText(cause)}`));
      return null;
    }
  };
  // No checkout yet: there is no content to build (the last good dist/, if any, is still served).
  const first = checkedOut ? await build() : null;
  const store = app.dist();
  store.reload();
  if (!store.current()) {
    err('No build to serve: fix the problems above and start again.');
    return 1;
  }
  if (!first?.ok) err('Serving the last good build.');
  // Later builds made for another public URL are not taken up (app.dist()); this one is all there is.
  const startBuild = store.current()!.manifest;
  if (startBuild.publicUrl !== app.publicUrl) err(servedForOtherUrlMessage(startBuild, app.publicUrl));
  // The build served, where a `quire publish` here sees it: it sends its webhooks once this serves
  // what they announce (receivers fetch on a webhook).
  let recordFailed = false;
  const recordServed = () => {
    const buildId = store.current()?.buildId;
    if (!buildId) return;
    try {
      recordServedBuild(config.stateDir, { pid: process.pid, distDir: buildSettings().distDir, buildId, publicUrl: app.publicUrl });
    } catch (e) {
      if (!recordFailed) err(printable(`Cannot record the build served in ${config.stateDir} (a publish here will not wait for this server): ${errorText(e)}`));
      recordFailed = true;
    }
  };
  recordServed();
  app.onClose(() => forgetServedBuild(config.stateDir, process.pid));
  /** After a swap: the new build served (if there is one), its record and the go-live timer updated. */
  const serveNewBuild = (loaded: string): void => {
    if (!store.reload()) return;
    newBuildServed(loaded);
  };
  const newBuildServed = (loaded: string): void => {
    recordServed();
    out(loaded);
    schedule?.reschedule();
  };
  // What clients see: each published article inside its window only (scheduled ones appear at
  // their publishedAt, expiring ones go at their expiresAt), with no rebuild.
  const served = timedReader(store);
  const worker = publishing ? startDeliveryWorker(publishing) : null;
  if (worker) app.onClose(() => worker.stop());
  const following = follow ? createFollowing(ctx, follow, { settings: buildSettings, caches, publishing, build, noteBuild, serveNewBuild: () => serveNewBuild('Loaded the new build.') }) : null;
  if (following) app.onClose(() => following.follower.stop());
  // At each build loaded and each go-live and expiry: the change feed's changes, and the webhooks
  // a go-live or an expiry calls for, queued for the worker (once, under the publish lock; also
  // what came due while no server ran).
  const noteFeed = feedNotes(log);
  const recordWhatIsServed = async (now: number): Promise<'done' | 'busy'> => {
    const snapshot = store.current();
    if (!snapshot || !publishing) return 'done';
    const result = await recordServedChanges(publishing.store, { snapshot, distDir: buildSettings().distDir, drafts: await store.draftSlugs(snapshot) }, now);
    if (result.status === 'busy') return 'busy';
    for (const e of result.events) log(printable(`Scheduled: ${e.siteId}/${e.slug} ${e.event === 'published' ? 'went live' : 'expired'}; \`${e.event}\` queued`));
    for (const f of result.feed) noteFeed(snapshot.buildId, f);
    if (result.events.length) worker?.wake();
    return 'done';
  };
  const scheduleError = (e: unknown) => err(printable(`Recording what is served (change feed, go-lives): ${errorText(e)}`));
  // Once before the API answers, so the feed it serves already has this build (unless a publish
  // holds the lock: it records the build itself).
  if (publishing) await recordWhatIsServed(Date.now()).catch(scheduleError);
  const schedule = publishing ? startChangeTimer({ nextChange: () => served.current()?.validUntil ?? null, run: recordWhatIsServed, onError: scheduleError }) : null;
  if (schedule) app.onClose(() => schedule.stop());
  // A build swapped in while that ran, before dist/ is watched (below), is taken up now.
  serveNewBuild('Loaded the new build.');
  const hosts = allowedHosts({ publicUrl: config.publicUrl, listenHost: config.host, port: server.port });
  const adminToken = config.adminToken ?? randomBytes(24).toString('base64url');
  const base = app.publicUrl;
  const admin = !publishing ? publishingUnavailable() : createAdminApp({
    adminToken,
    publicUrl: () => base,
    trustProxy: config.trustProxy,
    contentDir: buildSettings().contentDir,
    distDir: config.distDir,
    dist: served,
    keyring,
    rotateKey: (siteId) => generations.rotate(siteId),
    publishing,
    allowPrivate: config.allowPrivateTargets,
    lastBuild: () => lastBuild,
    wakeDeliveries: () => worker?.wake(),
    log,
  });
  server.serve(createServerRouter({
    api: {
      store: served,
      keyring,
      publicUrl: base,
      log,
      noteSite: observed.requests.noteSite,
      // GET /v1/changes reads the change log of the state every publish records into.
      changes: publishing?.store.changes ?? null,
    },
    admin: { app: admin, renderError: renderAdminRefusal },
    hooks: following?.hooks ?? null,
    hostCheck: hosts ? allowedHostsOnly(hosts, config.trustProxy) : null,
    maxBodyBytes: config.maxBodyBytes,
    readiness: createReadiness({ buildServed: () => store.current() !== null, worker: () => worker?.health() ?? NO_STATE_STORE }),
    metrics: observed.metrics,
  }));
  app.onClose(
    store.watch(() => newBuildServed('Loaded the new build.')),
  );
  // A keys.json that stops reading keeps the generations held now (never reverts them) and is reported.
  const keyTimer = setInterval(() => generations.refresh((e) => err(errorText(e))), 1000);
  keyTimer.unref();
  app.onClose(() => clearInterval(keyTimer));

  out(`\nQuire Content API on ${base}/v1  (OpenAPI: ${base}/openapi.json)`);
  // Behind a proxy the public URL says nothing of where the proxy must send requests.
  if (config.publicUrl !== null) out(`Listening on ${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`);
  out(`Limits: ${limits.maxConnections} connections, ${limits.maxPerClient || 'no cap'} per client; request bodies up to ${config.maxBodyBytes} bytes`);
  out(describeAllowedHosts(hosts, config.trustProxy));
  out(`${describeTrustProxy(config.trustProxy)}
`);
  const snapshot = served.current()!;
  for (const [id, site] of snapshot.sites) {
    out(`  ${id.padEnd(16)} ${site.summary.name} — ${site.articles.size} published`);
    out(`  ${''.padEnd(16)} key: ${keyring.keyFor(id)}`);
  }
  const [firstSite] = snapshot.sites.keys();
  if (firstSite) out(`\nTry:\n  curl -H "Authorization: Bearer ${keyring.keyFor(firstSite)}" ${base}/v1/articles\n`);
  // The token goes in the fragment: browsers never send it to the server, so it reaches no log.
  if (!publishing) out(`Publishing app: unavailable (the state store cannot be read; see above)\n`);
  else out(config.adminToken ? `Publishing app: ${base}/admin (sign in with QUIRE_ADMIN_TOKEN)\n` : `Publishing app: ${base}/admin/sign-in#token=${adminToken}\n`);
  if (follow && following) {
    const every = follow.intervalSeconds ? `every ${follow.intervalSeconds} s` : 'on push notifications only';
    out(`Following ${displayUrl(follow.source)} (${followedBranch(follow)}): fetching ${every}; push endpoint: ${following.hooks ? `${base}/hooks/git` : 'off (set QUIRE_GIT_HOOK_SECRET)'}\n`);
    following.follower.start();
  }

  // Rebuilds (on a change in dev) run one at a time; a request during one runs once more after it.
  const rebuild = oneAtATime(async () => {
    const result = await build();
    if (result?.ok) serveNewBuild('Serving the new build.');
    if (!result?.ok) err('The last good build stays up.');
  });
  if (opts.watch) await watchContent(ctx, rebuild);

  // Stopped by a signal; the App closes what was opened here, the last first.
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

/** Logs what a recording made of a site's change feed; a build not recorded is told once per site. */
function feedNotes(log: (line: string) => void): (buildId: string, f: FeedRecording) => void {
  const told = new Set<string>();
  return (buildId, f) => {
    if (f.status === 'recorded') return log(printable(`Change feed: ${f.siteId}: ${f.changes} change${f.changes === 1 ? '' : 's'} recorded (what this server serves)`));
    const key = `${buildId}:${f.siteId}`;
    if (told.has(key)) return;
    told.add(key);
    if (f.status === 'older') log(printable(`Change feed: ${f.siteId}: nothing recorded from this server's build: the feed stands for a newer one (built ${new Date(f.newer.builtAt).toISOString()}, by another server or a publish)`));
    else log(printable(`Change feed: ${f.siteId}: nothing recorded from this build: an article left it and the build's preview tree, which tells a withdrawal from a deletion, cannot be read; the next build or publish records it`));
  };
}

/** The start-up line about forwarded headers: whom they are read from. */
function describeTrustProxy(trust: TrustProxy): string {
  if (trust.kind === 'none') return 'Proxy: none trusted; X-Forwarded-* is not read (QUIRE_TRUST_PROXY)';
  if (trust.kind === 'first-hop') return 'Proxy: every peer is trusted as the proxy (QUIRE_TRUST_PROXY=1): only the proxy must reach this port';
  return `Proxy: X-Forwarded-* read from ${trust.ranges.map(([a, bits]) => `${a.toString()}/${bits}`).join(', ')}, not capped per client`;
}

/** Delivery (the state store and the webhook client), or null (reported) when the store cannot be read. */
async function openDeliveryOrReport(ctx: CliContext): Promise<DeliveryDeps | null> {
  try {
    const deps = ctx.app.delivery();
    await deps.store.ready();
    return deps;
  } catch (e) {
    if (!(e instanceof StateStoreError || e instanceof StateDatabaseError)) throw e;
    ctx.err(errorText(e));
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

/** `run` never twice at once: a call while it runs makes it run once more when it has finished. */
function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await run();
      } while (again);
    })();
    await running;
    running = null;
  };
}

/** `dev`: rebuilds when something under the content folder changes (after 80 ms of quiet). */
async function watchContent({ app, out }: CliContext, rebuild: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  const contentDir = app.content().dir;
  // Links are never followed: one in the content tree is a problem the build reports, not more to watch.
  const watcher = chokidar.watch(contentDir, { ignoreInitial: true, followSymlinks: false, ignored: (p) => /(^|[/\\])\./.test(p.slice(contentDir.length)) });
  app.onClose(() => {
    if (timer) clearTimeout(timer);
    return watcher.close();
  });
  watcher.on('all', () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), 80);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  out(`Watching ${path.relative(process.cwd(), contentDir) || '.'} for changes.`);
}
