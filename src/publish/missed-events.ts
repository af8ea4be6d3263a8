// Re-enabling a webhook that a 410 Gone disabled: what the receiver missed is queued again.
// The receiver missed a slug when the newest delivery of that slug (tests aside) failed, and
// that delivery still says what the last publish recorded for the slug (published with this
// payload, withdrawn, deleted): it is queued again with the same event and bytes. Deliveries
// still pending (queued by publishes while the webhook was off) become due at once.
import type { StateStore } from '../store/state-store.ts';

const EVENT_FOR_STATE = { published: ['published', 'updated'], withdrawn: ['unpublished'], deleted: ['deleted'] } as const;

/** Queues what the receiver of `siteId` never acknowledged; returns how many events. Call in the transaction that re-enables it. */
export function queueMissedEvents(store: StateStore, siteId: string, now: number): number {
  const recorded = store.published.get(siteId);
  let queued = 0;
  for (const missed of store.outbox.unacknowledged(siteId)) {
    const state = recorded?.articles.get(missed.slug)?.state;
    if (!state || !(EVENT_FOR_STATE[state] as readonly string[]).includes(missed.event)) continue; // superseded by what was recorded since
    store.outbox.enqueue({ siteId, slug: missed.slug, event: missed.event, body: missed.body, origin: 'publish' }, now);
    queued++;
  }
  store.outbox.makeDue(siteId, now);
  return queued;
}
