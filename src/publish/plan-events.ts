// Which events a publish sends, from what is published now and what the receiver was last sent.
// Pure: the payload hashes say whether an article changed in a way its receiver can see.

import type { WebhookEvent } from '../contract/webhook-events.ts';
import type { ArticleChange, RecordedArticle } from '../store/state-store.ts';

export type EventName = WebhookEvent;

export interface PlannedEvent {
  slug: string;
  event: EventName;
}

export interface EventPlan {
  events: PlannedEvent[];
  /** What to record as sent once the events are queued. */
  changes: ArticleChange[];
  /** Withdrawn and deleted articles not sent because the webhook did not opt in to those events. */
  notSent: { withdrawn: number; deleted: number };
}

/**
 * - `published`: published now, and not at the last publish (new, draft → published, re-published);
 * - `updated`: published then and now, and its webhook payload changed;
 * - withdrawn (now a draft) or deleted: recorded, and sent as `unpublished` / `deleted` only to
 *   webhooks that opted in (spec-conforming receivers know just the two events above).
 * With no record (a site's first publish) every published article is `published`.
 */
export function planEvents(
  current: ReadonlyMap<string, string>,
  draftSlugs: ReadonlySet<string>,
  recorded: ReadonlyMap<string, RecordedArticle> | null,
  opts: { extraEvents: boolean },
): EventPlan {
  const events: PlannedEvent[] = [];
  const changes: ArticleChange[] = [];
  const notSent = { withdrawn: 0, deleted: 0 };
  for (const [slug, payloadHash] of current) {
    const before = recorded?.get(slug);
    if (before?.state !== 'published') events.push({ slug, event: 'published' });
    else if (before.payloadHash !== payloadHash) events.push({ slug, event: 'updated' });
    else continue;
    changes.push({ slug, state: 'published', payloadHash });
  }
  for (const [slug, before] of recorded ?? []) {
    if (before.state !== 'published' || current.has(slug)) continue;
    const state = draftSlugs.has(slug) ? 'withdrawn' : 'deleted';
    changes.push({ slug, state, payloadHash: null });
    if (opts.extraEvents) events.push({ slug, event: state === 'withdrawn' ? 'unpublished' : 'deleted' });
    else notSent[state]++;
  }
  return { events, changes, notSent };
}

/**
 * The event that stands for a still-pending one and a newer one of the same slug: a receiver
 * that has not yet been told `published` must hear `published`, with the latest payload.
 */
export function collapseEvents(pending: string | null, next: EventName): EventName {
  if (next === 'updated' && (pending === 'published' || pending === 'unpublished' || pending === 'deleted'))
    return 'published';
  return next;
}
