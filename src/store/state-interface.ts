// The operations of the state store, the one interface every implementation gives (SQLite in
// sqlite/, PostgreSQL in postgres/). Imported by the implementations and re-exported by
// state-store.ts, the module the rest of Quire imports; it imports no implementation, so none
// depends on itself. Every operation returns a Promise: PostgreSQL's driver is asynchronous.
import type {
  ArticleChange,
  AttemptLogEntry,
  AttemptRecord,
  AttemptVerdict,
  ChangePage,
  ClaimedDelivery,
  Delivery,
  DeliveryStats,
  DeliveryState,
  DeliveryWithBody,
  FeedBuild,
  FeedState,
  LockResult,
  NewDelivery,
  PublishedNow,
  RecordedChange,
  SitePublishRecord,
  UndeliveredEntry,
  WebhookChange,
  WebhookRecord,
} from './records.ts';
import type { ClaimedPageCheck, PageCheckProblem, PageCheckResult, VerificationCounts } from './page-check-records.ts';

export interface StateStore extends StateParts {
  /**
   * What a write costs: 'local' (SQLite: a file on this machine, a statement costs little) or
   * 'round-trip' (PostgreSQL: a request to a database server). Senders group what they record by
   * it (src/delivery/group-recorder.ts).
   */
  readonly writes: 'local' | 'round-trip';
  locks: Locks;
  hostSlots: HostSlots;
  pageChecks: PageChecks;
  keyGenerations: KeyGenerationRecords;
  /**
   * Runs `work` as one transaction: all of its writes or none. Inside, use `tx`, not the store:
   * an implementation with a connection pool binds `tx` to the transaction's connection, and
   * SQLite's holds every other operation of the process until the transaction ends (so a call
   * on the store itself from inside `work` would wait for ever).
   */
  transaction<T>(work: (tx: StateParts) => Promise<T>): Promise<T>;
  /**
   * Resolves once the store can be used (PostgreSQL: connected, schema up to date), or rejects
   * with why not. Every operation waits for it anyway; a command calls it first so that a bad
   * server is told before anything else happens.
   */
  ready(): Promise<void>;
  /**
   * Calls `wake` whenever another process may have made deliveries due (queued them, or made
   * them due now), so an idle sender looks at once; resolves to what stops it. Absent where the
   * store cannot tell (SQLite): senders look again on their own timer, as they also do here.
   */
  watchDue?(wake: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** What a transaction may read and write. */
export interface StateParts {
  webhooks: Webhooks;
  outbox: Outbox;
  published: PublishRecords;
  changes: ChangeLog;
}

/** Each site's webhook registration. The secret is sealed at rest and only ever read back to sign. */
export interface Webhooks {
  get(siteId: string): Promise<WebhookRecord | null>;
  list(): Promise<WebhookRecord[]>;
  /** The plain secret, for signing a request. */
  secretOf(siteId: string): Promise<string | null>;
  /** Creates or replaces the registration; saving re-enables a webhook disabled by a 410. */
  save(siteId: string, change: WebhookChange, now: number): Promise<WebhookRecord>;
  remove(siteId: string): Promise<boolean>;
  disable(siteId: string, reason: string, now: number): Promise<void>;
}

/**
 * The delivery outbox: every event is queued here before any request is made, and each attempt
 * is logged. Senders (a publish run, the server's worker) claim a delivery with a lease, so two
 * of them never send the same one at once, and never two deliveries of one slug at once (order).
 */
export interface Outbox {
  get(id: string): Promise<DeliveryWithBody | null>;
  /** The publish delivery still waiting for this slug, if any (at most one: see enqueue). */
  pendingPublishFor(siteId: string, slug: string): Promise<Delivery | null>;
  /**
   * Queues a delivery, due now. A publish delivery replaces the slug's pending one: the
   * receiver only needs the latest payload (the caller decides the event that stands for both).
   * With a lease, the caller sends it itself and no other sender can take it first.
   */
  enqueue(d: NewDelivery, now: number, lease?: { owner: string; until: number } | null): Promise<string>;
  /** Ids of pending deliveries due by `now` whose webhook is enabled, oldest first. */
  due(now: number, siteId?: string | null, limit?: number): Promise<string[]>;
  /** When the next pending delivery with an enabled webhook falls due (or its lease ends); null: none. */
  nextDueAt(siteId: string | null): Promise<number | null>;
  /** How many pending deliveries other senders hold a lease on now (are sending). */
  inFlight(siteId: string | null, now: number): Promise<number>;
  /** Gives back claims this sender took and did not attempt (they are due again at once). */
  release(ids: string[], owner: string): Promise<void>;
  /** Takes the right to send one delivery until `leaseUntil`; false if another sender has it. */
  claim(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean>;
  /** claim() that hands back the claimed delivery. */
  take(id: string, owner: string, now: number, leaseUntil: number): Promise<ClaimedDelivery | null>;
  /** take() for several deliveries at once (one commit); those another sender holds are left out. */
  takeMany(ids: string[], owner: string, now: number, leaseUntil: number): Promise<ClaimedDelivery[]>;
  /**
   * takeMany(due(now, siteId, limit)) in one step: the first `limit` due deliveries no other
   * sender holds or is claiming, oldest first. Concurrent senders each get others, never the
   * same list to fight over.
   */
  takeDue(
    now: number,
    siteId: string | null,
    limit: number,
    owner: string,
    leaseUntil: number,
  ): Promise<ClaimedDelivery[]>;
  /**
   * Frees leases whose sender died on this host (SIGKILL mid-request): their deliveries are
   * due again at once instead of after the lease runs out. The request may be repeated;
   * receivers upsert.
   */
  releaseDeadLeases(now: number): Promise<number>;
  /** Logs an attempt and applies its verdict (unless the delivery was superseded meanwhile). */
  recordAttempt(id: string, attempt: AttemptRecord, verdict: AttemptVerdict, now: number): Promise<void>;
  /** Several attempts at once (one commit instead of one per delivery). */
  recordAttempts(
    records: { id: string; attempt: AttemptRecord; verdict: AttemptVerdict; now: number }[],
  ): Promise<void>;
  /**
   * Per slug of the site, its newest delivery (tests and superseded ones aside) when that one
   * failed: what the receiver never acknowledged.
   */
  unacknowledged(siteId: string): Promise<DeliveryWithBody[]>;
  /**
   * Per article of the site, its newest failed delivery when no later delivery of that article
   * settled (Test connection aside: it checks the receiver); at most `limit`, newest first.
   */
  undelivered(siteId: string, limit?: number): Promise<UndeliveredEntry[]>;
  /** Settles a pending delivery as superseded: what it carries is no longer what should be sent. */
  supersede(id: string, now: number): Promise<boolean>;
  /** Makes the site's pending deliveries due now (their webhook was just re-enabled). */
  makeDue(siteId: string, now: number): Promise<number>;
  /**
   * Pending deliveries (of one site, or every site), scheduled for later or due, oldest first,
   * each made due now: `deliveries retry` sends them at once instead of at their next time.
   */
  pendingMadeDue(siteId: string | null, now: number): Promise<string[]>;
  /** Makes one pending delivery due now; false when it is not pending. */
  makeOneDue(id: string, now: number): Promise<boolean>;
  /** The newest delivery of the same slug and site created after this one, if any. */
  newerForSlug(d: Delivery): Promise<Delivery | null>;
  /** Where the receiver last said this slug landed (its `{url}` reply), if it ever did. */
  latestReplyUrl(siteId: string, slug: string): Promise<string | null>;
  /** How many deliveries wait to be sent, and when the oldest of them was queued (for metrics). */
  pendingSummary(): Promise<{ count: number; oldestCreatedAt: number | null }>;
  counts(siteId?: string | null): Promise<Record<DeliveryState, number>>;
  /** The whole outbox at `now`, with the attempts made since `since`. */
  stats(now: number, since: number): Promise<DeliveryStats>;
  /** Deliveries, newest first. */
  list(opts?: { siteId?: string | null; limit?: number; states?: DeliveryState[] }): Promise<Delivery[]>;
  /** Every attempt with its delivery's facts, newest first. */
  attemptLog(opts?: { siteId?: string | null; limit?: number }): Promise<AttemptLogEntry[]>;
}

/**
 * Two records per site. The change feed's state (every site, webhook or not), recorded by each
 * publish and by a server for what it serves (a build it loads, a go-live, an expiry), each change
 * appended to its log, with the build it stands for. And, apart, what its webhook receiver was last
 * sent: the commit and, per slug, state and payload hash, advanced only by publishes that queue
 * for a registered webhook and a server's go-lives and expiries (a webhook registered later still
 * hears everything on its first publish).
 */
export interface PublishRecords {
  /** What the site's receiver was last sent; null: never (its first publish with a webhook sends everything, or --baseline). */
  get(siteId: string): Promise<SitePublishRecord | null>;
  /** The site's change-feed state, webhook or not; null: nothing recorded yet. */
  feedState(siteId: string): Promise<FeedState | null>;
  /**
   * Records changes; call in the transaction that queues their deliveries. `changes` (since
   * feedState) are also appended to the site's change log (see ChangeLog); `sent` (since get) is
   * what was queued for its webhook: null when none is registered (what it was sent stays),
   * omitted when it equals `changes` (the two records were equal). `build`: the build the feed
   * state now stands for; omitted, the one it stood for stays.
   */
  record(
    siteId: string,
    commit: string | null,
    changes: RecordedChange[],
    now: number,
    sent?: ArticleChange[] | null,
    build?: FeedBuild,
  ): Promise<void>;
  /** Forgets both of the site's records (its next publish is a first one) and its change history. */
  forget(siteId: string): Promise<void>;
}

/**
 * Every article change `published.record` recorded, per site, in order: what GET /v1/changes
 * serves. Positions are each site's own (1, 2, 3…, never reused), so a site's cursors tell nothing
 * of another's changes; each site keeps its newest CHANGE_LOG_KEEP_PER_SITE entries (pruned as it
 * records), so a position older than that expires.
 */
export interface ChangeLog {
  /** This store's random identity: a position made by another store (or a store started over) means nothing here. */
  storeId(): Promise<string>;
  /** The site's entries after `position`, oldest first, at most `limit`; `expired` when history was lost since it. */
  after(siteId: string, position: number, limit: number): Promise<ChangePage>;
  /** What the site's feed state has as published (null: nothing recorded yet), and the position that state stands at. */
  publishedNow(siteId: string): Promise<PublishedNow>;
}

/**
 * The checks of delivered articles' live pages. A delivery queued with a plan (Outbox.enqueue's
 * `pageCheck`) has its check fall due its plan's delay after it is acknowledged (recorded as
 * delivered); a newer acknowledged delivery of the same article ends the checks still waiting for
 * older ones (their page is gone). Verifiers claim checks with leases, like deliveries, so each is
 * made once however many run, and at most one check of a site runs at a time.
 */
export interface PageChecks {
  /** Leases up to `limit` due checks, the earliest due first, one per site, none of a site whose check another verifier holds. */
  take(now: number, limit: number, owner: string, leaseUntil: number): Promise<ClaimedPageCheck[]>;
  /** Records what a check this verifier holds found (and when it is due again), freeing its lease. */
  record(deliveryId: string, owner: string, result: PageCheckResult): Promise<void>;
  /** Gives back checks this verifier took and did not make: due again at once. */
  release(deliveryIds: string[], owner: string): Promise<void>;
  /**
   * Keeps at most `cap` checks waiting per site: the oldest deliveries' beyond it are dropped
   * (one never made is left `unverified`, PAGE_CHECKS_DROPPED). Returns what each site lost.
   */
  dropOverCap(cap: number, now: number): Promise<{ siteId: string; dropped: number }[]>;
  /** Per article of the site, its newest acknowledged delivery when its check found a problem or could not tell; newest first. */
  problems(siteId: string, limit?: number): Promise<PageCheckProblem[]>;
  /** Acknowledged deliveries by what their check came to (of one site, or every site). */
  counts(siteId?: string | null): Promise<VerificationCounts>;
}

/**
 * Slots per receiving host, shared by every sender of the state (on PostgreSQL, every machine):
 * a sender holds one for each request in flight, so a host never has more than `cap` at once.
 */
export interface HostSlots {
  /** A free slot below `cap` of `host`, held until `until` (or released); null: all are held. */
  take(host: string, cap: number, owner: string, now: number, until: number): Promise<number | null>;
  release(host: string, slot: number, owner: string): Promise<void>;
}

/**
 * Each API key's generation above 1, by key name (a site id, or `<site>.preview`): the state's
 * copy of keys.json, which a lost or older keys.json is checked against (src/keys/). A recorded
 * generation never goes down.
 */
export interface KeyGenerationRecords {
  /** Where they are kept, for messages (`the state store <file>`, `the PostgreSQL state at <server>/<database>`). */
  readonly where: string;
  all(): Promise<Record<string, number>>;
  /**
   * Records a rotation: the key's generation becomes one above the higher of the recorded one
   * and `from` (the one the caller holds). Resolves to it once committed durably (the caller
   * shows the new key only then); two rotations at once get two generations.
   */
  rotate(name: string, from: number): Promise<number>;
  /** Raises each key's recorded generation to at least the one given (keys.json's); never lowers one. */
  raise(generations: Record<string, number>): Promise<void>;
}

/** Named locks between processes sharing the state (two `publish` runs must not both send). */
export interface Locks {
  /** Takes the lock unless a live holder has it; a holder that died on this host is taken over. */
  tryAcquire(name: string, owner: string, now: number): Promise<LockResult>;
}
