// What the state store keeps, as the rest of Quire sees it: plain values, the same whichever
// database holds them. Implementations map their rows to these and back.
import type { NetErrorKind } from '../net/net-errors.ts';
import type { PageCheckRequest, Verification } from './page-check-records.ts';

/** Each site's webhook registration (its secret stays sealed inside the store). */
export interface WebhookRecord {
  siteId: string;
  url: string;
  /** The secret's last 4 characters: enough to tell two secrets apart, not to guess one. */
  secretHint: string;
  /** Opt-in: also send `unpublished` and `deleted` events (not part of the base contract). */
  extraEvents: boolean;
  disabledAt: number | null;
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookChange {
  url: string;
  /** Omitted: keep the stored one (a registration must have one). */
  secret?: string;
  extraEvents?: boolean;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'superseded';
export type DeliveryOrigin = 'publish' | 'test' | 'redeliver';

export interface Delivery {
  id: string;
  siteId: string;
  slug: string;
  event: string;
  origin: DeliveryOrigin;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  settledAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  replyUrl: string | null;
  replyId: string | null;
}

/** A delivery with the exact bytes it sends, and what its article's live page is to be checked against. */
export interface DeliveryWithBody extends Delivery {
  body: Buffer;
  pageCheck: PageCheckRequest;
}

/** What a sender needs of a delivery it has claimed: who it goes to, what it is, its bytes. */
export interface ClaimedDelivery {
  id: string;
  siteId: string;
  slug: string;
  event: string;
  /** Attempts made before this one. */
  attempts: number;
  body: Buffer;
}

export interface NewDelivery {
  siteId: string;
  slug: string;
  event: string;
  body: Buffer;
  origin: DeliveryOrigin;
  /** Its article's live page, checked once the delivery is acknowledged (absent: not checked). */
  pageCheck?: PageCheckRequest;
}

export interface AttemptRecord {
  url: string;
  startedAt: number;
  durationMs: number;
  status: number | null;
  /** What went wrong, in words (for a network failure, without its kind). */
  error: string | null;
  /** Why no answer came (a refused address, a time-out…); absent or null when the receiver answered. */
  errorKind?: NetErrorKind | null;
  replyUrl: string | null;
  replyId: string | null;
  /** Where a redirect (3xx) pointed, if it said; absent or null otherwise. */
  redirectTo?: string | null;
}

/** An attempt's error as people read it: a network failure's kind in front (`timeout: …`). */
export function attemptErrorText(a: Pick<AttemptRecord, 'error' | 'errorKind'>): string | null {
  return a.errorKind && a.error !== null ? `${a.errorKind}: ${a.error}` : a.error;
}

/** How an attempt leaves its delivery: settled, or pending again with its next time. */
export type AttemptVerdict = { state: 'delivered' | 'failed' } | { state: 'pending'; nextAttemptAt: number };

export interface AttemptLogEntry extends AttemptRecord {
  deliveryId: string;
  siteId: string;
  slug: string;
  event: string;
  origin: DeliveryOrigin;
  deliveryState: DeliveryState;
  /** Its delivery's page check; null: none (not an article event, not acknowledged, replaced by a newer delivery before it was checked). */
  verification: Verification | null;
}

/** An article whose newest settled delivery (tests aside) failed: the web app's badge. */
export interface UndeliveredEntry {
  deliveryId: string;
  slug: string;
  event: string;
  origin: DeliveryOrigin;
  failedAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

export type RecordedState = 'published' | 'withdrawn' | 'deleted';

export interface RecordedArticle {
  state: RecordedState;
  payloadHash: string | null;
}

/** A site's record (what its receiver was last sent, or its change feed's state): the commit and each slug's state. */
export interface SitePublishRecord {
  commit: string | null;
  publishedAt: number;
  articles: Map<string, RecordedArticle>;
}

/**
 * The build a site's feed state was last recorded from (by a publish, or by a server that loaded
 * it): its id and when it was made. A server that serves an older build records nothing: another
 * server, or a publish, has moved the feed on, and what that build serves would read as regressions.
 */
export interface FeedBuild {
  id: string;
  /** The manifest's builtAt (epoch ms). */
  builtAt: number;
}

/** What a site's last recording made of its change feed's state, and the build that was (null: not known, recorded before builds were). */
export interface FeedState extends SitePublishRecord {
  build: FeedBuild | null;
}

export interface ArticleChange {
  slug: string;
  state: RecordedState;
  payloadHash: string | null;
}

/** A change as recorded: with its list item (JSON text) when published, for the change log. */
export interface RecordedChange extends ArticleChange {
  /** The article's item of GET /v1/articles, as the build wrote it; null unless published. */
  item: string | null;
}

/**
 * How many change-log entries each site keeps (the newest). A client whose cursor is older
 * than that resyncs from the list; at one entry per article change, it is days to months of
 * history for most sites. Bounded so the log's size is, too.
 */
export const CHANGE_LOG_KEEP_PER_SITE = 10_000;

/** How the change feed names a recorded change (`published` again after a withdrawal is `published`). */
export type ChangeType = 'published' | 'updated' | 'withdrawn' | 'deleted';

/** One entry of a site's change log. */
export interface ChangeEntry {
  /** Its position in its site's log: 1, 2, 3… per site, never reused. */
  seq: number;
  slug: string;
  type: ChangeType;
  /** The list item's JSON text for published and updated; null otherwise. */
  item: string | null;
  /** The instant it was recorded (the publish, or the server that loaded the build or reached the go-live or expiry; epoch ms). */
  at: number;
}

/** Entries of a site's log after a position, or why that position cannot be read from. */
export type ChangePage =
  | {
      status: 'ok';
      entries: ChangeEntry[] /** Entries after the last one given wait. */;
      more: boolean /** Where the next read starts. */;
      position: number;
    }
  /** The position is before the oldest kept entry (pruned) or after the newest the site's log ever made (another store's, or a restored one). */
  | { status: 'expired' };

/** What a site's feed state has as published, and the log position it stands at. */
export interface PublishedNow {
  /** null: nothing recorded for the site yet. */
  articles: { slug: string; item: string | null; at: number }[] | null;
  position: number;
}

/** The outbox as the whole fleet sees it: `quire deliveries --stats`, a worker's health line. */
export interface DeliveryStats {
  counts: Record<DeliveryState, number>;
  /** When the oldest pending delivery was queued; null: none pending. */
  oldestPendingAt: number | null;
  /** Pending deliveries a sender holds the lease of now (being sent). */
  inFlight: number;
  /** Senders holding leases now (each drain of a server, `publish` or `worker`). */
  senders: number;
  /** Attempts since `since`: answered 2xx, and not (failed, or to be retried). */
  attempts: { since: number; delivered: number; failed: number };
}

export interface LockHolder {
  owner: string;
  pid: number;
  host: string;
  acquiredAt: number;
}

export type LockResult = { acquired: true; release: () => Promise<void> } | { acquired: false; holder: LockHolder };
