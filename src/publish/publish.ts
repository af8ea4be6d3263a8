// `quire publish`: build, compare each site with what its receiver was last sent, queue the
// events (recording the new state in the same transaction), then deliver what is due. Every
// site's changes are recorded for the change feed, webhook or not (see PublishRecords), unless a
// running server recorded them already when it loaded the build (served-changes.ts).
// Killed at any point, a rerun finds every undelivered event either still queued or not yet
// recorded as sent, so nothing is lost; the request in flight may be repeated (receivers upsert).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { buildExport, type BuildCaches, type BuildResult, type BuildSettings } from '../compile/build.ts';
import type { ArticleChange, Delivery, LockHolder, PageCheckRequest } from '../store/state-store.ts';
import { drainOutbox, type DeliveryDeps, type DrainOptions, type DrainSummary } from '../delivery/delivery-runner.ts';
import { locateContentRepository } from '../git/repository.ts';
import { feedBuildOf, readBody, readDelivery, servedAt, withListItems } from './build-payloads.ts';
import { changedFilesSince, NO_REVISION, readRevision, uncommittedFilesIn } from './git-revision.ts';
import { collapseEvents, planEvents, type PlannedEvent } from './plan-events.ts';

export { feedBuildOf, PublishError, readBody, servedAt, withListItems } from './build-payloads.ts';

export interface PublishOptions {
  siteId: string | null;
  dryRun: boolean;
  /** Record the current state as sent without sending anything. */
  baseline: boolean;
  /** false: queue only, and leave sending to the workers or a server (`publish --no-deliver`). */
  deliver?: boolean;
  /** How long to wait for quick retries before leaving the rest to the next run / the server. */
  retryWindowMs: number;
  /** How long to wait for another publish run to finish. */
  lockWaitMs: number;
  /** Called once the build has run, failed or not, before anything is planned. */
  onBuild?: (build: BuildResult) => void;
  /** Called once the events are planned (and queued), before anything is sent. */
  onPlan?: (plan: PublishPlan) => void;
  onAttempt?: DrainOptions['onAttempt'];
}

export interface SiteReport {
  siteId: string;
  /** Why nothing was planned for this site (no webhook), or null. */
  skipped: string | null;
  /** Changes recorded for the change feed (since its state was last recorded, webhook or not). */
  feedChanges: number;
  disabled: string | null;
  firstPublish: boolean;
  previousCommit: string | null;
  changedFiles: number | null;
  /** Files of the site's folder published from disk with uncommitted changes (0 when the content is clean; null: unknown). */
  uncommittedFiles: number | null;
  events: PlannedEvent[];
  /** Withdrawn and deleted articles recorded but not sent: the webhook did not opt in. */
  notSent: { withdrawn: number; deleted: number };
}

/** What a run is about to do: the commit, and per site the events it sends. */
export interface PublishPlan {
  dryRun: boolean;
  baseline: boolean;
  commit: string | null;
  dirty: boolean;
  sites: SiteReport[];
}

export type PublishReport =
  | { status: 'build-failed'; build: BuildResult }
  | { status: 'locked'; holder: LockHolder }
  | { status: 'unknown-site'; siteId: string }
  | (PublishPlan & {
      status: 'done';
      /** false: queued only (--no-deliver); `drain` is empty. */
      delivered: boolean;
      drain: DrainSummary;
      /** Deliveries of these sites still waiting (with their next attempt) or failed this run. */
      pending: Delivery[];
      failed: Delivery[];
    });

export interface PublishDeps extends DeliveryDeps {
  settings: BuildSettings;
  /** A running server's warm build caches; a one-shot run loads them from the state dir. */
  caches?: BuildCaches;
  /**
   * Resolves once the server that answers receivers' fetches serves `buildId` (or gives up,
   * bounded): called after the build, before anything is queued or recorded, so no webhook or
   * change-feed entry announces what is not served yet. Absent: nothing to wait for.
   */
  untilServed?: (buildId: string) => Promise<void>;
}

/**
 * Publish runs in this process right now. The publish lock is per process (a process may take it
 * again), so work that must not interleave with a run here (the server's go-live announcements,
 * which read and record the same state) checks this first.
 */
let publishesHere = 0;
export const publishingInThisProcess = (): boolean => publishesHere > 0;

export async function publish(deps: PublishDeps, opts: PublishOptions): Promise<PublishReport> {
  publishesHere++;
  try {
    return await publishUnderLock(deps, opts);
  } finally {
    publishesHere--;
  }
}

async function publishUnderLock(deps: PublishDeps, opts: PublishOptions): Promise<PublishReport> {
  const { store } = deps;
  let release = async () => {};
  if (!opts.dryRun) {
    const owner = `publish:${process.pid}:${randomBytes(4).toString('hex')}`;
    const waitUntil = deps.now() + opts.lockWaitMs;
    for (;;) {
      const lock = await store.locks.tryAcquire('publish', owner, deps.now());
      if (lock.acquired) {
        release = lock.release;
        break;
      }
      if (deps.now() >= waitUntil) return { status: 'locked', holder: lock.holder };
      await deps.sleep(200);
    }
  }
  try {
    return await publishLocked(deps, opts);
  } finally {
    await release();
  }
}

async function publishLocked(deps: PublishDeps, opts: PublishOptions): Promise<PublishReport> {
  const { store, settings } = deps;
  // git runs while the build does (it reads what the build reads: the commit checked out), once
  // the content folder's repository is located and the folder checked for planted ones.
  const repository = locateContentRepository(settings.contentDir);
  const reading = repository.then((r) =>
    r.issues.length ? NO_REVISION : readRevision(r.repository, settings.contentDir),
  );
  // A dry run computes the would-be manifest and leaves dist/ as it is.
  const build = await buildExport(settings, deps.caches, { write: !opts.dryRun, repository });
  opts.onBuild?.(build);
  if (!build.ok || !build.manifest) return { status: 'build-failed', build };
  const manifest = build.manifest;
  const siteIds = Object.keys(manifest.sites).filter((id) => opts.siteId === null || id === opts.siteId);
  if (opts.siteId !== null && !siteIds.length) return { status: 'unknown-site', siteId: opts.siteId };
  const revision = await reading;
  const started = deps.now();

  const reports: SiteReport[] = [];
  const queued: {
    siteId: string;
    slug: string;
    event: PlannedEvent['event'];
    body: Buffer;
    pageCheck: PageCheckRequest;
  }[] = [];
  const records: { siteId: string; changes: ArticleChange[]; sent: ArticleChange[] | null }[] = [];
  for (const siteId of siteIds) {
    const webhook = await store.webhooks.get(siteId);
    const recorded = await store.published.get(siteId);
    const { current, withdrawn } = servedAt(
      manifest.sites[siteId]!,
      started,
      build.sites.find((s) => s.id === siteId)?.draftSlugs ?? [],
    );
    // The feed's story, whoever listens: what changed since its state was recorded (by the last
    // publish, or by a running server for what it served). Under the publish lock, which servers
    // take to record too: nothing is recorded between this and the transaction below.
    const feedChanges = planEvents(current, withdrawn, (await store.published.feedState(siteId))?.articles ?? null, {
      extraEvents: true,
    }).changes;
    const report: SiteReport = {
      siteId,
      skipped: webhook ? null : `no webhook registered`,
      feedChanges: feedChanges.length,
      disabled: webhook?.disabledAt ? (webhook.disabledReason ?? 'disabled') : null,
      firstPublish: recorded === null,
      previousCommit: recorded?.commit ?? null,
      changedFiles:
        recorded?.commit && revision.commit && revision.repository
          ? await changedFilesSince(
              revision.repository,
              path.join(settings.contentDir, siteId),
              recorded.commit,
              revision.commit,
            )
          : null,
      // Asked only when the content has uncommitted changes: a clean checkout costs no more git.
      uncommittedFiles:
        revision.dirty && revision.repository
          ? await uncommittedFilesIn(revision.repository, path.join(settings.contentDir, siteId))
          : revision.commit
            ? 0
            : null,
      events: [],
      notSent: { withdrawn: 0, deleted: 0 },
    };
    reports.push(report);
    if (!webhook) {
      records.push({ siteId, changes: feedChanges, sent: null });
      continue;
    }
    const plan = planEvents(current, withdrawn, recorded?.articles ?? null, { extraEvents: webhook.extraEvents });
    report.events = opts.baseline ? [] : plan.events;
    if (!opts.baseline) report.notSent = plan.notSent;
    records.push({ siteId, changes: feedChanges, sent: plan.changes });
    if (opts.dryRun || opts.baseline) continue;
    for (const e of plan.events)
      queued.push({ siteId, slug: e.slug, event: e.event, body: Buffer.alloc(0), pageCheck: null });
  }

  if (!opts.dryRun) {
    await deps.untilServed?.(manifest.buildId);
    // Bodies are read before the transaction (it must not wait on the disk), checked against
    // the manifest so a concurrent rebuild cannot slip a different payload under a recorded hash.
    for (const q of queued) Object.assign(q, readDelivery(settings.distDir, manifest, q.siteId, q.slug, q.event));
    const recorded = records.map((r) => ({
      ...r,
      changes: withListItems(settings.distDir, manifest, r.siteId, r.changes),
    }));
    await store.transaction(async (tx) => {
      for (const q of queued) {
        const pending = await tx.outbox.pendingPublishFor(q.siteId, q.slug);
        const event = collapseEvents(pending?.event ?? null, q.event);
        const body = event === q.event ? q.body : readBody(settings.distDir, manifest, q.siteId, q.slug, event);
        await tx.outbox.enqueue(
          { siteId: q.siteId, slug: q.slug, event, body, origin: 'publish', pageCheck: q.pageCheck },
          started,
        );
      }
      // The feed state now stands for this build: a server still serving an older one records nothing from it.
      for (const r of recorded)
        await tx.published.record(r.siteId, revision.commit, r.changes, started, r.sent, feedBuildOf(manifest));
    });
  }

  const plan: PublishPlan = {
    dryRun: opts.dryRun,
    baseline: opts.baseline,
    commit: revision.commit,
    dirty: revision.dirty,
    sites: reports,
  };
  opts.onPlan?.(plan);

  const drain: DrainSummary = { attempts: 0, delivered: 0, failed: 0 };
  const failed: Delivery[] = [];
  const deliver = !opts.dryRun && opts.deliver !== false;
  if (deliver) {
    for (const siteId of siteIds) {
      if (!(await store.webhooks.get(siteId))) continue;
      const s = await drainOutbox(deps, {
        siteId,
        retryWindowMs: opts.retryWindowMs,
        onAttempt: opts.onAttempt,
        awaitOthers: true,
      });
      drain.attempts += s.attempts;
      drain.delivered += s.delivered;
      drain.failed += s.failed;
    }
    for (const siteId of siteIds) {
      failed.push(
        ...(await store.outbox.list({ siteId, states: ['failed'], limit: 1000 })).filter(
          (d) => (d.settledAt ?? 0) >= started,
        ),
      );
    }
  }
  const pending: Delivery[] = [];
  if (!opts.dryRun)
    for (const siteId of siteIds)
      pending.push(...(await store.outbox.list({ siteId, states: ['pending'], limit: 10_000 })));
  return { status: 'done', ...plan, delivered: deliver, drain, pending, failed };
}
