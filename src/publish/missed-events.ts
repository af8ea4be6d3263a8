// Re-enabling a webhook that a 410 Gone disabled: what the receiver missed is queued again.
// The receiver missed a slug when the newest delivery of that slug (tests aside) failed, and
// that delivery still says what the last publish recorded for the slug (published with this
// payload, withdrawn, deleted): it is queued again with the same event and bytes. Deliveries
// still pending (queued by publishes while the webhook was off) become due at once, unless what
// was recorded since overtook them.
import type { StateParts } from '../store/state-store.ts';

const EVENT_FOR_STATE = {
  published: ['published', 'updated'],
  withdrawn: ['unpublished'],
  deleted: ['deleted'],
} as const;

/** Queues what the receiver of `siteId` never acknowledged; returns how many events. Call in the transaction that re-enables it. */
export async function queueMissedEvents(store: StateParts, siteId: string, now: number): Promise<number> {
  const recorded = await store.published.get(siteId);
  const stillTrue = (slug: string, event: string) => {
    const state = recorded?.articles.get(slug)?.state;
    return state !== undefined && (EVENT_FOR_STATE[state] as readonly string[]).includes(event);
  };
  let queued = 0;
  for (const missed of await store.outbox.unacknowledged(siteId)) {
    if (!stillTrue(missed.slug, missed.event)) continue; // overtaken by what was recorded since
    await store.outbox.enqueue(
      {
        siteId,
        slug: missed.slug,
        event: missed.event,
        body: missed.body,
        origin: 'publish',
        pageCheck: missed.pageCheck,
      },
      now,
    );
    queued++;
  }
  // Publishes queued while it was off: one whose article was withdrawn or deleted since (and
  // whose receiver takes no such events) must not go out now.
  for (const waiting of await store.outbox.list({ siteId, states: ['pending'], limit: 1_000_000 })) {
    if (waiting.origin === 'publish' && !stillTrue(waiting.slug, waiting.event))
      await store.outbox.supersede(waiting.id, now);
  }
  await store.outbox.makeDue(siteId, now);
  return queued;
}
