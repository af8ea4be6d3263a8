// Go-lives and expiries for webhooks, announced by a running server at their instant, with no
// build: an article whose window opened since its site's receiver was last sent anything is sent
// as `published`; one whose window closed is recorded as withdrawn (and sent as `unpublished` to
// webhooks that opted in). Run by served-changes.ts inside its transaction under the publish lock,
// from the recorded state, so a go-live is announced once, whichever of two servers, a restart or
// a `publish` run gets there first. Content changes are not sent here: that is `publish`.
import type { Manifest, ManifestSite } from '../export/manifest.ts';
import { isLiveAt, visibilityAt } from '../schedule/windows.ts';
import type { ArticleChange, SitePublishRecord, StateParts } from '../store/state-store.ts';
import { readDelivery } from './build-payloads.ts';
import { collapseEvents, type PlannedEvent } from './plan-events.ts';

export interface WindowEvents {
  events: PlannedEvent[];
  /** What to record as sent (published.record's `sent`); null: the site's receiver was never sent anything (or it has none). */
  sent: ArticleChange[] | null;
  /** The commit its receiver was last sent, which recording keeps. */
  commit: string | null;
}

/** Queues, in `tx`, the events of the site's go-lives and expiries since its receiver was last sent anything. */
export async function queueWindowEvents(
  tx: StateParts,
  distDir: string,
  manifest: Manifest,
  siteId: string,
  nowMs: number,
): Promise<WindowEvents> {
  const webhook = await tx.webhooks.get(siteId);
  // A receiver that was never published to hears of everything from its first `publish`.
  const sentBefore = webhook ? await tx.published.get(siteId) : null;
  if (!sentBefore) return { events: [], sent: null, commit: null };
  const events: PlannedEvent[] = [];
  const sent = windowChanges(manifest.sites[siteId]!, sentBefore, nowMs);
  for (const c of sent) {
    if (c.state === 'published') {
      const pending = await tx.outbox.pendingPublishFor(siteId, c.slug);
      const event = collapseEvents(pending?.event ?? null, 'published');
      await tx.outbox.enqueue(
        { siteId, slug: c.slug, event, origin: 'publish', ...readDelivery(distDir, manifest, siteId, c.slug, event) },
        nowMs,
      );
      events.push({ slug: c.slug, event });
    } else if (webhook!.extraEvents) {
      await tx.outbox.enqueue(
        {
          siteId,
          slug: c.slug,
          event: 'unpublished',
          origin: 'publish',
          ...readDelivery(distDir, manifest, siteId, c.slug, 'unpublished'),
        },
        nowMs,
      );
      events.push({ slug: c.slug, event: 'unpublished' });
    }
  }
  return { events, sent, commit: sentBefore.commit };
}

/** What went live (published) or expired (withdrawn) since a record of the site was made, by `nowMs`. */
function windowChanges(site: ManifestSite, recorded: SitePublishRecord, nowMs: number): ArticleChange[] {
  const since = (iso: string | null | undefined) =>
    !!iso && Date.parse(iso) > recorded.publishedAt && Date.parse(iso) <= nowMs;
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
