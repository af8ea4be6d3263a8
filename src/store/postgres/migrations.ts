// The PostgreSQL schema, one step per version; a step is never edited once released: add one.
// quire_schema records the steps applied. Run at start under an advisory lock, in one
// transaction: two processes starting at once apply each step once, and a failed step leaves
// the database as it was. Ids and keys collate as bytes ("C"), as SQLite compares them: delivery
// ids are time-ordered by their bytes.
import { StateStoreError } from '../state-store-error.ts';
import type { Db } from './connection.ts';

export const MIGRATIONS: readonly string[] = [
  // 1: the same state as SQLite's (webhooks, outbox with bodies apart and attempts, what was
  // last published with its change log, locks), and the slug leases that keep one slug's deliveries from
  // overlapping across senders.
  `
  CREATE TABLE webhooks (
    site_id         text COLLATE "C" PRIMARY KEY,
    url             text NOT NULL,
    secret_sealed   text NOT NULL,
    secret_hint     text NOT NULL,
    extra_events    boolean NOT NULL DEFAULT false,
    disabled_at     bigint,
    disabled_reason text,
    created_at      bigint NOT NULL,
    updated_at      bigint NOT NULL
  );

  CREATE TABLE deliveries (
    id              text COLLATE "C" PRIMARY KEY,
    site_id         text COLLATE "C" NOT NULL,
    slug            text COLLATE "C" NOT NULL,
    event           text NOT NULL,
    origin          text NOT NULL,
    state           text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'superseded')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at bigint,
    lease_until     bigint,
    lease_owner     text,
    created_at      bigint NOT NULL,
    settled_at      bigint,
    last_status     integer,
    last_error      text,
    reply_url       text,
    reply_id        text,
    seq             bigserial        -- the order deliveries were queued in (created_at ties)
  );
  -- due(): pending deliveries in the order they are sent, each checked for an older pending one
  -- of its article (deliveries_pending_slug) until enough are found.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at, created_at, seq) WHERE state = 'pending';
  CREATE INDEX deliveries_pending_slug ON deliveries (site_id, slug, seq) WHERE state = 'pending';
  CREATE INDEX deliveries_site ON deliveries (site_id, created_at);
  CREATE INDEX deliveries_slug ON deliveries (site_id, slug, state);

  CREATE TABLE delivery_bodies (
    delivery_id text COLLATE "C" PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    body        bytea NOT NULL
  );

  CREATE TABLE attempts (
    id          bigserial PRIMARY KEY,
    delivery_id text COLLATE "C" NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    url         text NOT NULL,
    started_at  bigint NOT NULL,
    duration_ms integer NOT NULL,
    status      integer,
    error       text,
    error_kind  text,
    reply_url   text,
    reply_id    text
  );
  CREATE INDEX attempts_delivery ON attempts (delivery_id, started_at);
  CREATE INDEX attempts_started ON attempts (started_at);

  CREATE TABLE published_sites (
    site_id      text COLLATE "C" PRIMARY KEY,
    commit_sha   text,
    published_at bigint NOT NULL
  );

  CREATE TABLE published_articles (
    site_id      text COLLATE "C" NOT NULL,
    slug         text COLLATE "C" NOT NULL,
    state        text NOT NULL CHECK (state IN ('published', 'withdrawn', 'deleted')),
    payload_hash text,
    item         text,             -- the list item's JSON as last recorded; null unless published
    changed_at   bigint NOT NULL,
    PRIMARY KEY (site_id, slug)
  );

  -- What each site's webhook receiver was last sent, apart from what its last publish recorded
  -- (as SQLite's migration 5): advanced only by publishes that queue for a registered webhook.
  CREATE TABLE webhook_sent_sites (
    site_id    text COLLATE "C" PRIMARY KEY,
    commit_sha text,
    sent_at    bigint NOT NULL
  );
  CREATE TABLE webhook_sent_articles (
    site_id      text COLLATE "C" NOT NULL,
    slug         text COLLATE "C" NOT NULL,
    state        text NOT NULL CHECK (state IN ('published', 'withdrawn', 'deleted')),
    payload_hash text,
    PRIMARY KEY (site_id, slug)
  );

  -- The change log behind GET /v1/changes (as SQLite's migration 4). Positions come from
  -- change_positions, updated in the recording transaction, never reused.
  CREATE TABLE article_changes (
    seq     bigint PRIMARY KEY,
    site_id text COLLATE "C" NOT NULL,
    slug    text COLLATE "C" NOT NULL,
    type    text NOT NULL CHECK (type IN ('published', 'updated', 'withdrawn', 'deleted')),
    item    text,
    at      bigint NOT NULL
  );
  CREATE INDEX article_changes_site ON article_changes (site_id, seq);
  CREATE TABLE article_changes_pruned (
    site_id text COLLATE "C" PRIMARY KEY,
    through bigint NOT NULL
  );
  CREATE TABLE change_positions (newest bigint NOT NULL);
  INSERT INTO change_positions (newest) VALUES (0);
  CREATE TABLE store_identity (id text NOT NULL);
  INSERT INTO store_identity (id) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 16));

  -- Who holds a named lock, for the message to the one that waits; the lock itself is a
  -- session advisory lock, freed by the server when its holder's connection ends.
  CREATE TABLE locks (
    name        text PRIMARY KEY,
    owner       text NOT NULL,
    pid         integer NOT NULL,
    host        text NOT NULL,
    acquired_at bigint NOT NULL
  );

  -- One row per slug with a delivery in flight: taking a delivery takes its slug's row (an
  -- upsert that waits for a concurrent one and sees its result), so two senders never send
  -- two deliveries of one slug at once. Freed when the attempt is recorded, or at lease end.
  CREATE TABLE slug_leases (
    site_id     text COLLATE "C" NOT NULL,
    slug        text COLLATE "C" NOT NULL,
    delivery_id text COLLATE "C" NOT NULL,
    owner       text NOT NULL,
    lease_until bigint NOT NULL,
    PRIMARY KEY (site_id, slug)
  );
  CREATE INDEX slug_leases_delivery ON slug_leases (delivery_id);

  -- Slots per receiving host (quire worker --per-host): a sender holds one per request in
  -- flight, taken with FOR UPDATE SKIP LOCKED; a slot whose lease ran out is free.
  CREATE TABLE host_slots (
    host        text COLLATE "C" NOT NULL,
    slot        integer NOT NULL,
    owner       text,
    lease_until bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (host, slot)
  );
  `,
  // 2: the database the store's identity was made in (store-identity.ts), claimed at start: a
  // dump restored into another database is another store for the change feed.
  `
  ALTER TABLE store_identity ADD COLUMN made_in text;
  `,
  // 3: room in each page of deliveries for its rows' next versions. A claim sets only the lease,
  // which no index holds: with room on the row's page it is a HOT update, made without a new
  // entry in any of the table's five indexes (with full pages, as bulk queueing leaves them,
  // nearly every claim added five). Pages written from now on keep the room.
  `
  ALTER TABLE deliveries SET (fillfactor = 50);
  `,
  // 4: change-log positions per site (as SQLite's migration 7). They were one numbering for the
  // whole store, so a site's cursors counted every other site's changes too. Each site's kept
  // entries are numbered 1, 2, 3… in their order; `change_log_sites` holds the newest position
  // each site handed out (its row, updated in the recording transaction, also makes two
  // recordings of one site wait for each other) and the newest its pruning or forgetting removed.
  // Cursors made before hold positions of the old numbering: a new store identity expires them.
  `
  ALTER TABLE article_changes DROP CONSTRAINT article_changes_pkey;
  DROP INDEX article_changes_site;
  UPDATE article_changes c SET seq = r.n
    FROM (SELECT seq, row_number() OVER (PARTITION BY site_id ORDER BY seq) AS n FROM article_changes) r
    WHERE c.seq = r.seq;
  ALTER TABLE article_changes ADD PRIMARY KEY (site_id, seq);
  CREATE TABLE change_log_sites (
    site_id text COLLATE "C" PRIMARY KEY,
    newest  bigint NOT NULL,
    through bigint NOT NULL
  );
  INSERT INTO change_log_sites (site_id, newest, through) SELECT site_id, max(seq), 0 FROM article_changes GROUP BY site_id;
  DROP TABLE article_changes_pruned;
  DROP TABLE change_positions;
  UPDATE store_identity SET id = substr(md5(random()::text || clock_timestamp()::text), 1, 16);
  `,
  // 5: each API key's generation above 1, the state's copy of keys.json (as SQLite's migration 8):
  // a rotation is committed here before keys.json is written.
  `
  CREATE TABLE key_generations (
    name       text COLLATE "C" PRIMARY KEY,
    generation bigint NOT NULL CHECK (generation >= 1)
  );
  `,
  // 6: the build each site's change-feed state stands for (as SQLite's migration 9).
  `
  ALTER TABLE published_sites ADD COLUMN build_id text, ADD COLUMN built_at bigint;
  `,
  // 7: where a redirect pointed, in its own column (as SQLite's migration 10).
  `
  ALTER TABLE attempts ADD COLUMN redirect_to text;
  UPDATE attempts SET redirect_to = substr(error, 18, length(error) - 17 - 38)
   WHERE status BETWEEN 300 AND 399 AND error LIKE 'redirect (___ to %) not followed: register the final URL';
  `,
  // 8: page checks (as SQLite's migration 11), and one row per site whose check a verifier is
  // making: taking a check takes its site's row (an upsert that waits for a concurrent one and
  // sees its result, as slug_leases), so the fleet makes one check of a site at a time.
  `
  CREATE TABLE page_checks (
    delivery_id text COLLATE "C" PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    site_id     text COLLATE "C" NOT NULL,
    slug        text COLLATE "C" NOT NULL,
    state       text NOT NULL CHECK (state IN ('awaiting', 'off', 'pending', 'live', 'render_problem', 'unverified', 'superseded')),
    plan        text,
    delay_ms    bigint NOT NULL DEFAULT 0,
    due_at      bigint,
    tries       integer NOT NULL DEFAULT 0,
    lease_until bigint,
    lease_owner text,
    checked_at  bigint,
    code        text,
    message     text,
    fix         text,
    url         text,
    checks      text
  );
  CREATE INDEX page_checks_site ON page_checks (site_id, slug, delivery_id);
  CREATE INDEX page_checks_due ON page_checks (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX page_checks_waiting ON page_checks (site_id, slug) WHERE due_at IS NOT NULL;
  CREATE TABLE page_check_sites (
    site_id     text COLLATE "C" PRIMARY KEY,
    owner       text NOT NULL,
    lease_until bigint NOT NULL
  );
  `,
];

const MIGRATION_LOCK = 'quire:migrations';

/** Brings the schema up to date, inside the caller's transaction `tx`; refuses a database a newer Quire has migrated. */
export async function migrate(tx: Db, where: string): Promise<void> {
  await tx.run('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
  await tx.run('CREATE TABLE IF NOT EXISTS quire_schema (version integer PRIMARY KEY, applied_at bigint NOT NULL)');
  const [{ version }] = (await tx.rows<{ version: number }>(
    'SELECT coalesce(max(version), 0)::int AS version FROM quire_schema',
  )) as [{ version: number }];
  if (version > MIGRATIONS.length) {
    throw new StateStoreError(
      `the PostgreSQL state at ${where} has schema version ${version}, newer than this Quire knows (${MIGRATIONS.length}); upgrade Quire`,
    );
  }
  for (let v = version + 1; v <= MIGRATIONS.length; v++) {
    await tx.run(MIGRATIONS[v - 1]!);
    await tx.run('INSERT INTO quire_schema (version, applied_at) VALUES ($1, $2)', [v, Date.now()]);
  }
}
