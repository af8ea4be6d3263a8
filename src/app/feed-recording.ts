// What a running server serves, recorded in the change feed, and the webhooks a go-live or an
// expiry calls for, queued for the delivery worker: once before the API answers (so the feed it
// serves already has this build, unless a publish holds the lock: it records the build itself),
// after each build loaded, and at each go-live and expiry; under the publish lock, so once
// across servers, and also what came due while no server ran.
import type { StateStore } from '../store/state-store.ts';
import type { LocalSnapshotReader } from '../snapshot/local-snapshot.ts';
import type { ServedReader } from '../snapshot/timed-view.ts';
import { recordServedChanges, type FeedRecording } from '../publish/served-changes.ts';
import { startChangeTimer, type ChangeTimer } from '../schedule/change-timer.ts';
import { errorText } from '../problems/problem.ts';
import { printable } from '../text/printable.ts';

export interface FeedRecordingDeps {
  state: StateStore;
  /** The build in dist/ and its drafts. */
  dist: LocalSnapshotReader;
  /** What is served now: when it changes next. */
  served: ServedReader;
  distDir: () => string;
  log: (line: string) => void;
  err: (line: string) => void;
  /** Webhooks were queued: the worker sends them now. */
  wake: () => void;
}

/** Records what is served now, then at each change; `reschedule` after a new build is loaded. */
export async function startFeedRecording({
  state,
  dist,
  served,
  distDir,
  log,
  err,
  wake,
}: FeedRecordingDeps): Promise<ChangeTimer> {
  const noteFeed = feedNotes(log);
  const record = async (now: number): Promise<'done' | 'busy'> => {
    const snapshot = dist.current();
    if (!snapshot) return 'done';
    const result = await recordServedChanges(
      state,
      { snapshot, distDir: distDir(), drafts: await dist.draftSlugs(snapshot) },
      now,
    );
    if (result.status === 'busy') return 'busy';
    for (const e of result.events)
      log(
        printable(
          `Scheduled: ${e.siteId}/${e.slug} ${e.event === 'published' ? 'went live' : 'expired'}; \`${e.event}\` queued`,
        ),
      );
    for (const f of result.feed) noteFeed(snapshot.buildId, f);
    if (result.events.length) wake();
    return 'done';
  };
  const onError = (e: unknown) => err(printable(`Recording what is served (change feed, go-lives): ${errorText(e)}`));
  await record(Date.now()).catch(onError);
  return startChangeTimer({ nextChange: () => served.current()?.validUntil ?? null, run: record, onError });
}

/** Logs what a recording made of a site's change feed; a build not recorded is told once per site. */
function feedNotes(log: (line: string) => void): (buildId: string, f: FeedRecording) => void {
  const told = new Set<string>();
  return (buildId, f) => {
    if (f.status === 'recorded')
      return log(
        printable(
          `Change feed: ${f.siteId}: ${f.changes} change${f.changes === 1 ? '' : 's'} recorded (what this server serves)`,
        ),
      );
    const key = `${buildId}:${f.siteId}`;
    if (told.has(key)) return;
    told.add(key);
    if (f.status === 'older')
      log(
        printable(
          `Change feed: ${f.siteId}: nothing recorded from this server's build: the feed stands for a newer one (built ${new Date(f.newer.builtAt).toISOString()}, by another server or a publish)`,
        ),
      );
    else
      log(
        printable(
          `Change feed: ${f.siteId}: nothing recorded from this build: an article left it and the build's preview tree, which tells a withdrawal from a deletion, cannot be read; the next build or publish records it`,
        ),
      );
  };
}
