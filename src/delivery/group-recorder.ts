// How senders record their attempts: in groups, one statement for many deliveries, written one
// group at a time (GroupRecorder); used by drainOutbox's senders.
import type { StateStore } from '../store/state-store.ts';
import type { AttemptResult } from './deliver.ts';

/** What records one attempt: the store's outbox, or a GroupRecorder in front of it. */
export type Recorder = Pick<StateStore['outbox'], 'recordAttempt'>;
type AttemptToRecord = Parameters<StateStore['outbox']['recordAttempts']>[0][number];

/**
 * Group commit for attempt records: one statement for many deliveries instead of one per
 * delivery (the commit was most of a delivery's local cost). One group is written at a time; what
 * is recorded meanwhile waits for it and goes in the next, so groups grow as the database slows.
 * A crash can lose the record of a delivery that completed in that window; it is then sent again
 * (receivers upsert) — the same at-least-once promise as a request in flight. A group that fails
 * to be written is reported by the next flush(), and stops the feed (ClaimFeed).
 */
export class GroupRecorder implements Recorder {
  private pending: AttemptToRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  failure: unknown = null;
  constructor(private readonly store: StateStore) {}
  async recordAttempt(
    id: string,
    attempt: AttemptResult['attempt'],
    verdict: AttemptToRecord['verdict'],
    now: number,
  ): Promise<void> {
    this.pending.push({ id, attempt, verdict, now });
    if (this.writing) return; // written when the group being written is
    if (this.pending.length >= GROUP_MAX) this.writeGroup();
    else this.timer ??= setTimeout(() => this.writeGroup(), GROUP_WAIT_MS);
  }
  /** Writes what is pending and waits until everything recorded so far is written. */
  async flush(): Promise<void> {
    while (this.writing || this.pending.length) {
      if (!this.writing) this.writeGroup();
      await this.writing;
    }
    const failure = this.failure;
    this.failure = null;
    if (failure) throw failure;
  }
  private writeGroup(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing || !this.pending.length) return;
    const group = this.pending.splice(0, GROUP_LIMIT);
    this.writing = this.store.outbox
      .recordAttempts(group)
      .then(
        () => undefined,
        (e: unknown) => {
          this.failure ??= e;
        },
      )
      .finally(() => {
        this.writing = null;
        if (!this.pending.length) return;
        // What was recorded during a write to a database server (the store says which writes it
        // has) waits for a full group or GROUP_WAIT_MS like any other: written at once, groups
        // stayed at the few recorded during one write, with more transactions and more of
        // PostgreSQL's CPU (docs/benchmarks-log.md, "figures first recorded in code comments").
        // On a local store (SQLite) it is written at once: there a statement costs little, and
        // the leases it ends free sooner.
        if (this.pending.length >= GROUP_MAX || this.store.writes === 'local') this.writeGroup();
        else this.timer ??= setTimeout(() => this.writeGroup(), GROUP_WAIT_MS);
      });
  }
}

/**
 * A group is written at once when this many wait, else after GROUP_WAIT_MS; at most GROUP_LIMIT
 * in one. 20 ms rather than 5: 5 ms groups held only a few records at a worker's rates, and
 * fuller ones cost the worker and PostgreSQL fewer statements (docs/benchmarks-log.md, "one round
 * trip a claim"); a slug's next delivery may wait that much longer for its lease.
 */
const GROUP_MAX = 64;
const GROUP_WAIT_MS = 20;
const GROUP_LIMIT = 1000;
