// Go-lives and expiries, announced by a running server at their instant, with no build: an
// article whose window opened since its site was last published is sent as `published`; one
// whose window closed is recorded as withdrawn (and sent as `unpublished` to webhooks that opted
// in). Both are recorded for the change feed whether or not the site has a webhook. Everything is
// decided from the recorded publish state inside one transaction under the publish lock, so a
// go-live is announced once, whichever of two servers, a restart or a `publish` run gets there
// first. Content changes are not announced here: that is `publish`.
import { randomBytes } from 'node:crypto';
import type { Manifest, ManifestSite } from '../dist/manifest.ts';
import { isLiveAt, visibilityAt } from '../schedule/windows.ts';
import type { ArticleChange, SitePublishRecord, StateStore } from '../store/state-store.ts';
import { publishingInThisProcess, readBody, withListItems } from './publish.ts';
import { collapseEvents, type PlannedEvent } from './plan-events.ts';

export type WindowChangeResult =
  | { status: 'done'; events: (PlannedEvent & { siteId: string })[] }
  /** Another publish holds the lock (here or elsewhere): try again shortly. */
  | { status: 'busy' };

export async function queueWindowChanges(store: StateStore, distDir: string, manifest: Manifest, nowMs: number): Promise<WindowChangeResult> {
  if (publishingInThisProcess()) return { status: 'busy' };
  const lock = await store.locks.tryAcquire('publish', `schedule:${process.pid}:${randomBytes(4).toString('hex')}`, nowMs);
  if (!lock.acquired) return { status: 'busy' };
  try {
    const events: (PlannedEvent & { siteId: string })[] = [];
    await store.transaction(async (tx) => {
      for (const [siteId, site] of Object.entries(manifest.sites)) {
        const feed = await tx.published.feedState(siteId);
        if (!feed) continue; // never published: its first `publish` records everything
        const webhook = await tx.webhooks.get(siteId);
        // A receiver that was never published to hears of everything from its first `publish`.
        const sentBefore = webhook ? await tx.published.get(siteId) : null;
        const sent = sentBefore ? windowChanges(site, sentBefore, nowMs) : null;
        for (const c of sent ?? []) {
          if (c.state === 'published') {
            const pending = await tx.outbox.pendingPublishFor(siteId, c.slug);
            const event = collapseEvents(pending?.event ?? null, 'published');
            await tx.outbox.enqueue({ siteId, slug: c.slug, event, body: readBody(distDir, manifest, siteId, c.slug, event), origin: 'publish' }, nowMs);
            events.push({ siteId, slug: c.slug, event });
          } else if (webhook!.extraEvents) {
            await tx.outbox.enqueue({ siteId, slug: c.slug, event: 'unpublished', body: readBody(distDir, manifest, siteId, c.slug, 'unpublished'), origin: 'publish' }, nowMs);
            events.push({ siteId, slug: c.slug, event: 'unpublished' });
          }
        }
        const changes = windowChanges(site, feed, nowMs);
        if (changes.length || sent?.length) {
          await tx.published.record(siteId, sentBefore ? sentBefore.commit : feed.commit, withListItems(distDir, manifest, siteId, changes), nowMs, sent);
        }
      }
    });
    return { status: 'done', events };
  } finally {
    await lock.release();
  }
}

/** What went live (published) or expired (withdrawn) since a record of the site was made, by `nowMs`. */
function windowChanges(site: ManifestSite, recorded: SitePublishRecord, nowMs: number): ArticleChange[] {
  const since = (iso: string | null | undefined) => !!iso && Date.parse(iso) > recorded.publishedAt && Date.parse(iso) <= nowMs;
  const changes: ArticleChange[] = [];
  for (const [slug, entry] of Object.entries(site.articles)) {
    const before = recorded.articles.get(slug);
    if (isLiveAt(entry, nowMs) && before?.state !== 'published' && since(entry.publishedAt)) {
      changes.push({ slug, state: 'published', payloadHash: entry.payloadHash });
    } else if (visibilityAt(entry, nowMs) === 'expired' && before?.state === 'published' && since(entry.expiresAt)) {
      changes.push({ slug, state: 'withdrawn', payloadHash: null });
    }
  }
  return changes;
}
