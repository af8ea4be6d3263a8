// What the Publishing app is given, and what its handlers find on a request (its session).
import type { ContentFacts } from '../content/load-content.ts';
import type { TrustProxy } from '../config/trust-proxy.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import type { Keyring } from '../keys/api-keys.ts';
import type { SnapshotReader } from '../snapshot/snapshot-reader.ts';
import type { Session } from './sessions.ts';

export interface AdminDeps {
  adminToken: string;
  /**
   * Base URL of this server as clients see it (known once it listens). A form posted from its
   * origin is not cross-site, and the session cookie is Secure when it is https.
   */
  publicUrl: () => string;
  /** Proxies whose X-Forwarded-* name the client and the origin it used (default: none). */
  trustProxy?: TrustProxy;
  contentDir: string;
  distDir: string;
  dist: SnapshotReader;
  keyring: Keyring;
  /** Rotates a key: a site id (its API key), or previewKeyName(site) (its preview key); done when it resolves. */
  rotateKey: (keyName: string) => Promise<unknown>;
  publishing: DeliveryDeps;
  allowPrivate: boolean;
  /**
   * What the latest build read and found (the server keeps it): pages show this and never read
   * or parse content while answering a request.
   */
  lastBuild: () => ContentFacts;
  /** Where a request's unexpected failure is logged (its page says only that it failed). */
  log?: (line: string) => void;
  /** Called after a change that should reach receivers soon (Redeliver queued behind another). */
  wakeDeliveries?: () => void;
  /** The branches previewed (`start --follow --previews`), which the Articles tab can show; absent: none. */
  branches?: AdminBranches | null;
}

/** A previewed branch as the Articles tab shows it: read-only, nothing of it is published. */
export interface AdminBranch {
  branch: string;
  /** The commit its preview serves; null before its first good build. */
  built: string | null;
  /** What its last build read and found; null before one. */
  facts: ContentFacts | null;
  /** Its content tree (problem places are shown from it). */
  contentDir: string;
  /** Its preview as served now; null before its first good build. */
  reader: SnapshotReader | null;
}

export interface AdminBranches {
  /** The followed branch, what the tab shows without a branch named; null until the remote named it. */
  followed(): string | null;
  /** The previewed branches, the most recently pushed first. */
  list(): AdminBranch[];
}

export type AdminEnv = { Variables: { session: Session } };
