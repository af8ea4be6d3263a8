// The server (`quire start`, `quire dev`): assembled here. It listens first, builds (or, following
// a repository, checks it out and builds its commit), serves the build through the root router
// (the Content API, the Publishing app, the push hook, health and metrics), runs the delivery
// worker with its page verifier and the schedule timer, refreshes the keys, and (dev) rebuilds on change. What it
// opens, the App closes, the last first, when the command returns.
import { randomBytes } from 'node:crypto';
import { createAdminApp, renderAdminRefusal } from '../admin/admin-app.tsx';
import { publishingUnavailable } from '../admin/unavailable.ts';
import { createBuildCaches } from '../compile/build.ts';
import type { QuireConfig } from '../config/config.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { startDeliveryWorker } from '../delivery/delivery-worker.ts';
import { startPageVerifier } from '../delivery/page-verifier.ts';
import { displayUrl } from '../follow/follow-source.ts';
import { createServerObservability } from '../observe/server-observability.ts';
import { createReadiness, type WorkerHealth } from '../observe/readiness.ts';
import { routePattern } from '../api/routes.ts';
import { errorText } from '../problems/problem.ts';
import {
  connectionCap,
  DEFAULT_CONNECTION_LIMITS,
  openFileLimit,
  type ConnectionLimits,
} from '../server/connection-limits.ts';
import { createAnswerEncoder } from '../api/answer-encoding.ts';
import { KEYED_BODY } from '../api/app.ts';
import { answerShape } from '../api/middleware/prebuilt-body.ts';
import { createFastGet } from '../server/fast-get.ts';
import { allowedHosts, allowedHostsOnly, nodeHostFilter } from '../server/host-check.ts';
import { openListener } from '../server/serve.ts';
import { servedForOtherUrlMessage } from '../snapshot/build-public-url.ts';
import { forgetServedBuild, recordServedBuild } from '../snapshot/served-build.ts';
import { timedReader } from '../snapshot/timed-view.ts';
import { StateDatabaseError, StateStoreError } from '../store/state-store.ts';
import { printable } from '../text/printable.ts';
import type { App } from './app.ts';
import { adminBranches, createBranchPreviewing, refReaders } from './branch-previewing.ts';
import { oneAtATime, watchContent } from './content-watch.ts';
import { startFeedRecording } from './feed-recording.ts';
import { createFollowing, followedBranch, followedContentDir, syncBeforeStart, type FollowPlan } from './following.ts';
import type { Output } from './output.ts';
import { printServing } from './server-banner.ts';
import { createServerBuilds } from './server-builds.ts';
import { createServerRouter } from './server-router.ts';

export interface ServerOptions {
  /** `dev`: rebuild when the content changes. */
  watch: boolean;
  /** The repository followed (`start --follow`, checked by planFollow), or null. */
  follow: FollowPlan | null;
}

/** The worker's health when the state store could not be opened at start (no worker runs). */
const NO_STATE_STORE: WorkerHealth = { running: false, error: 'the state store could not be opened at start' };

/** Starts the server: 'serving' until the App closes, or 'no-build' (told) when there is nothing to serve. */
export async function startServer(
  app: App,
  { watch, follow }: ServerOptions,
  output: Output,
): Promise<'serving' | 'no-build'> {
  const { config } = app;
  const { out, err } = output;
  // Following a repository, the content is its checkout's, brought up to date before the first build.
  const checkedOut = follow ? await syncBeforeStart(output, follow) : true;
  const buildSettings = () => (follow ? app.buildSettingsFor(followedContentDir(follow)) : app.buildSettings);
  const { keyring, generations } = await app.keys(follow ? followedContentDir(follow) : undefined);
  const caches = createBuildCaches(config.stateDir);
  // The read-only API needs only dist/ and the keys: a broken delivery state turns webhooks and
  // the Publishing app off, with the file named, and the API keeps serving.
  const publishing = await openDeliveryOrReport(app, err);
  const observed = createServerObservability({
    format: config.logFormat,
    metrics: config.metrics,
    pending: publishing ? () => publishing.store.outbox.pendingSummary() : null,
    routePattern,
  });
  app.onClose(() => observed.logger.flush());
  const log = observed.logger.message;
  if (publishing) {
    publishing.observeAttempt = observed.observeAttempt;
    publishing.log = log;
  }
  const limits = connectionLimits(config, err);
  // Listen before the first build: the build writes the public URL into image URLs, and with
  // PORT=0 the port in it is known only now. Requests wait for the first build to be served.
  const server = await openListener(config.port, config.host, limits, observed.requests.attach);
  app.onClose(() => server.close());
  app.listening(server.port);

  const builds = createServerBuilds({ settings: buildSettings, caches, metrics: observed.metrics, output });
  // No checkout yet: there is no content to build (the last good dist/, if any, is still served).
  const first = checkedOut ? await builds.build() : null;
  const store = app.dist();
  store.reload();
  if (!store.current()) {
    err('No build to serve: fix the problems above and start again.');
    return 'no-build';
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
      recordServedBuild(config.stateDir, {
        pid: process.pid,
        distDir: buildSettings().distDir,
        buildId,
        publicUrl: app.publicUrl,
      });
    } catch (e) {
      if (!recordFailed)
        err(
          printable(
            `Cannot record the build served in ${config.stateDir} (a publish here will not wait for this server): ${errorText(e)}`,
          ),
        );
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
  // Branches matching --previews: each built apart, in the state dir, read only through refs.
  const previews = follow ? createBranchPreviewing(config, output, follow, () => app.publicUrl) : null;
  if (previews) app.onClose(() => previews.stop());
  // Beside it, the checks of delivered articles' live pages.
  const verifier = publishing
    ? startPageVerifier({ store: publishing.store, client: app.verifyClient(), now: publishing.now, log })
    : null;
  if (verifier) app.onClose(() => verifier.stop());
  const following = follow
    ? createFollowing(config, output, follow, {
        settings: buildSettings,
        caches,
        publishing,
        build: builds.build,
        noteBuild: builds.note,
        serveNewBuild: () => serveNewBuild('Loaded the new build.'),
        previews,
      })
    : null;
  if (following) app.onClose(() => following.follower.stop());
  // The change feed and the webhooks of go-lives and expiries, recorded once before the API answers.
  const schedule = publishing
    ? await startFeedRecording({
        state: publishing.store,
        dist: store,
        served,
        distDir: () => buildSettings().distDir,
        log,
        err,
        wake: () => worker?.wake(),
      })
    : null;
  if (schedule) app.onClose(() => schedule.stop());
  // A build swapped in while that ran, before dist/ is watched (below), is taken up now.
  serveNewBuild('Loaded the new build.');
  const hosts = allowedHosts({ publicUrl: config.publicUrl, listenHost: config.host, port: server.port });
  const adminToken = config.adminToken ?? randomBytes(24).toString('base64url');
  const base = app.publicUrl;
  const admin = !publishing
    ? publishingUnavailable()
    : createAdminApp({
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
        lastBuild: builds.lastBuild,
        wakeDeliveries: () => worker?.wake(),
        log,
        branches: follow && previews ? adminBranches(follow, previews) : null,
      });
  // One encoder for the app and what answers before it: one cap on compression at request time.
  const encoder = createAnswerEncoder();
  const router = createServerRouter({
    api: {
      store: served,
      keyring,
      publicUrl: base,
      log,
      encoder,
      noteSite: observed.requests.noteSite,
      // GET /v1/changes reads the change log of the state every publish records into.
      changes: publishing?.store.changes ?? null,
      // A ref names a previewed branch, or the followed one (the build served).
      refs: follow ? refReaders(follow, served, previews) : null,
    },
    admin: { app: admin, renderError: renderAdminRefusal },
    hooks: following?.hooks ?? null,
    hostCheck: hosts ? allowedHostsOnly(hosts, config.trustProxy) : null,
    maxBodyBytes: config.maxBodyBytes,
    readiness: createReadiness({
      buildServed: () => store.current() !== null,
      worker: () => worker?.health() ?? NO_STATE_STORE,
    }),
    metrics: observed.metrics,
  });
  const fastGet = createFastGet({
    reader: served,
    keyring,
    encoder,
    shape: answerShape(KEYED_BODY),
    hostAllowed: nodeHostFilter(hosts, config.trustProxy),
    noteSite: observed.requests.noteResponseSite,
  });
  server.serve(router, fastGet);
  app.onClose(store.watch(() => newBuildServed('Loaded the new build.')));
  // A keys.json that stops reading keeps the generations held now (never reverts them) and is reported.
  const keyTimer = setInterval(() => generations.refresh((e) => err(errorText(e))), 1000);
  keyTimer.unref();
  app.onClose(() => clearInterval(keyTimer));

  const every = follow?.intervalSeconds ? `every ${follow.intervalSeconds} s` : 'on push notifications only';
  printServing(
    {
      config,
      base,
      port: server.port,
      limits,
      hosts,
      snapshot: served.current()!,
      keyring,
      adminToken: publishing ? adminToken : null,
      following:
        follow && following
          ? `Following ${displayUrl(follow.source)} (${followedBranch(follow)}): fetching ${every}; push endpoint: ${following.hooks ? `${base}/hooks/git` : 'off (set QUIRE_GIT_HOOK_SECRET)'}\n` +
            (follow.previews
              ? `Branch previews: ${follow.previews.shown} (at most ${config.previewBranchesMax}), for preview keys with ?ref=<branch> or Quire-Ref\n`
              : '')
          : null,
    },
    out,
  );
  following?.follower.start();
  previews?.start();

  if (watch) {
    const rebuild = oneAtATime(async () => {
      const result = await builds.build();
      if (result?.ok) serveNewBuild('Serving the new build.');
      if (!result?.ok) err('The last good build stays up.');
    });
    await watchContent(app, out, rebuild);
  }
  return 'serving';
}

/** The connection limits from the settings, the total kept below the open-file limit (told when lowered). */
function connectionLimits(config: QuireConfig, err: (line: string) => void): ConnectionLimits {
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
  return limits;
}

/** Delivery (the state store and the webhook client), or null (told) when the store cannot be read. */
async function openDeliveryOrReport(app: App, err: (line: string) => void): Promise<DeliveryDeps | null> {
  try {
    const deps = app.delivery();
    await deps.store.ready();
    return deps;
  } catch (e) {
    if (!(e instanceof StateStoreError || e instanceof StateDatabaseError)) throw e;
    err(errorText(e));
    err(
      'The Content API is served; webhook delivery and the Publishing app are off until the state store reads again (fix it, then restart).',
    );
    return null;
  }
}
