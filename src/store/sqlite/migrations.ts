// The state store's schema, one step per version. A step is never edited once released: add one.
// PRAGMA user_version records how many steps a database has had.

export const MIGRATIONS: readonly string[] = [
  // 1: webhook registrations, the delivery outbox with its attempts, what was last published.
  `
  CREATE TABLE webhooks (
    site_id        TEXT PRIMARY KEY,
    url            TEXT NOT NULL,
    secret_sealed  TEXT NOT NULL,   -- AES-256-GCM, key derived from the server secret
    secret_hint    TEXT NOT NULL,   -- last characters, to tell secrets apart without showing one
    extra_events   INTEGER NOT NULL DEFAULT 0, -- opt-in: also send unpublished/deleted
    disabled_at    INTEGER,
    disabled_reason TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY, -- X-Quire-Delivery and webhook-id: the same on every attempt
    site_id         TEXT NOT NULL,
    slug            TEXT NOT NULL,
    event           TEXT NOT NULL,
    body            BLOB NOT NULL,    -- the exact bytes sent (and signed)
    origin          TEXT NOT NULL,    -- publish | test | redeliver
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'superseded')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,          -- epoch ms; null once settled
    lease_until     INTEGER,          -- epoch ms: a sender holds it until then
    lease_owner     TEXT,
    created_at      INTEGER NOT NULL,
    settled_at      INTEGER,
    last_status     INTEGER,
    last_error      TEXT,
    reply_url       TEXT,
    reply_id        TEXT
  ) STRICT;
  CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
  CREATE INDEX deliveries_site ON deliveries (site_id, created_at);
  CREATE INDEX deliveries_slug ON deliveries (site_id, slug, state);

  CREATE TABLE attempts (
    id          INTEGER PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status      INTEGER,
    error       TEXT,
    reply_url   TEXT,
    reply_id    TEXT
  ) STRICT;
  CREATE INDEX attempts_delivery ON attempts (delivery_id, started_at);

  CREATE TABLE published_sites (
    site_id      TEXT PRIMARY KEY,
    commit_sha   TEXT,
    published_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE published_articles (
    site_id      TEXT NOT NULL,
    slug         TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('published', 'withdrawn', 'deleted')),
    payload_hash TEXT,               -- of the webhook payload last queued; null unless published
    changed_at   INTEGER NOT NULL,
    PRIMARY KEY (site_id, slug)
  ) STRICT;

  CREATE TABLE locks (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    acquired_at INTEGER NOT NULL
  ) STRICT;
  `,
  // 2: bodies apart from delivery state. Every claim and attempt updates a delivery's row, and
  // SQLite rewrites a whole row on update, a body inside it included (docs/benchmarks-log.md,
  // "figures first recorded in code comments").
  `
  CREATE TABLE delivery_bodies (
    delivery_id TEXT PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    body        BLOB NOT NULL
  ) STRICT;
  INSERT INTO delivery_bodies (delivery_id, body) SELECT id, body FROM deliveries;
  ALTER TABLE deliveries DROP COLUMN body;
  `,
  // 3: a failed attempt's network error kind in its own column; it was the start of the error text
  // (`timeout: no complete response …`) and read back by splitting it.
  `
  ALTER TABLE attempts ADD COLUMN error_kind TEXT;
  UPDATE attempts
     SET error_kind = substr(error, 1, instr(error, ': ') - 1), error = substr(error, instr(error, ': ') + 2)
   WHERE status IS NULL AND instr(error, ': ') > 0
     AND substr(error, 1, instr(error, ': ') - 1) IN ('url_invalid', 'not_https', 'credentials', 'non_public', 'dns', 'refused', 'reset', 'timeout', 'tls', 'network');
  `,
  // 4: the change log behind GET /v1/changes: one row per recorded article change, with the
  // list item a published or updated article had then. `seq` is AUTOINCREMENT so a position is
  // never handed out twice, even after pruning; `published_articles.item` is each article's list
  // item as last recorded (the feed's state without a cursor); `article_changes_pruned` holds the
  // newest position each site's pruning removed (a cursor before it has lost history). `store_identity`
  // is this store's random id: a cursor made by another store (or one started over) is refused.
  `
  CREATE TABLE article_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    site_id TEXT NOT NULL,
    slug    TEXT NOT NULL,
    type    TEXT NOT NULL CHECK (type IN ('published', 'updated', 'withdrawn', 'deleted')),
    item    TEXT,                    -- the list item's JSON; null unless published or updated
    at      INTEGER NOT NULL         -- epoch ms: the publish that recorded it
  ) STRICT;
  CREATE INDEX article_changes_site ON article_changes (site_id, seq);
  ALTER TABLE published_articles ADD COLUMN item TEXT;
  CREATE TABLE article_changes_pruned (
    site_id TEXT PRIMARY KEY,
    through INTEGER NOT NULL         -- the newest seq of the site's that pruning (or forgetting) removed
  ) STRICT;
  CREATE TABLE store_identity (
    id TEXT NOT NULL
  ) STRICT;
  INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(8))));
  `,
  // 5: what each site's webhook receiver was last sent, apart from what its last publish recorded
  // (published_sites, published_articles: the change feed's state). Every publish records the
  // latter, webhook or not; the former only when a webhook is registered, so a webhook set later
  // still hears everything on its first publish. Until now only sites with a webhook were
  // recorded, so the two start equal.
  `
  CREATE TABLE webhook_sent_sites (
    site_id    TEXT PRIMARY KEY,
    commit_sha TEXT,
    sent_at    INTEGER NOT NULL      -- epoch ms: the publish that last queued events for it
  ) STRICT;
  CREATE TABLE webhook_sent_articles (
    site_id      TEXT NOT NULL,
    slug         TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('published', 'withdrawn', 'deleted')),
    payload_hash TEXT,               -- of the webhook payload last queued; null unless published
    PRIMARY KEY (site_id, slug)
  ) STRICT;
  INSERT INTO webhook_sent_sites (site_id, commit_sha, sent_at) SELECT site_id, commit_sha, published_at FROM published_sites;
  INSERT INTO webhook_sent_articles (site_id, slug, state, payload_hash) SELECT site_id, slug, state, payload_hash FROM published_articles;
  `,
  // 6: slots per receiving host (the per-host cap of `quire worker --per-host`): a sender holds
  // one per request in flight; a slot whose lease ran out is free.
  `
  CREATE TABLE host_slots (
    host        TEXT NOT NULL,
    slot        INTEGER NOT NULL,
    owner       TEXT,
    lease_until INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (host, slot)
  ) STRICT;
  `,
  // 7: change-log positions per site. They were one numbering for the whole store, so a site's
  // cursors counted every other site's changes too. Each site's kept entries are numbered 1, 2, 3…
  // in their order; `change_log_sites` holds the newest position each site handed out (never
  // handed out again) and the newest its pruning or forgetting removed (what
  // article_changes_pruned held). Cursors made before hold positions of the old numbering: a new
  // store identity expires them (410 CURSOR_EXPIRED), and clients resync.
  `
  CREATE TABLE article_changes_by_site (
    site_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,        -- the position in its site's log: 1, 2, 3…
    slug    TEXT NOT NULL,
    type    TEXT NOT NULL CHECK (type IN ('published', 'updated', 'withdrawn', 'deleted')),
    item    TEXT,
    at      INTEGER NOT NULL,
    PRIMARY KEY (site_id, seq)
  ) STRICT;
  INSERT INTO article_changes_by_site (site_id, seq, slug, type, item, at)
    SELECT site_id, row_number() OVER (PARTITION BY site_id ORDER BY seq), slug, type, item, at FROM article_changes;
  DROP TABLE article_changes;
  ALTER TABLE article_changes_by_site RENAME TO article_changes;
  CREATE TABLE change_log_sites (
    site_id TEXT PRIMARY KEY,
    newest  INTEGER NOT NULL,        -- the newest position the site's log handed out
    through INTEGER NOT NULL         -- the newest position its pruning (or forgetting) removed
  ) STRICT;
  INSERT INTO change_log_sites (site_id, newest, through) SELECT site_id, max(seq), 0 FROM article_changes GROUP BY site_id;
  DROP TABLE article_changes_pruned;
  UPDATE store_identity SET id = lower(hex(randomblob(8)));
  `,
  // 8: each API key's generation above 1, the state's copy of keys.json: a rotation is committed
  // here before keys.json is written, so a keys.json lost or restored from an older copy cannot
  // bring a key rotated away back unnoticed (src/keys/recorded-generations.ts compares the two).
  // Empty after the upgrade: the first start copies keys.json's generations in.
  `
  CREATE TABLE key_generations (
    name       TEXT PRIMARY KEY,   -- a site id, or a site id and ".preview"
    generation INTEGER NOT NULL CHECK (generation >= 1)
  ) STRICT;
  `,
  // 9: the build each site's change-feed state stands for (its id, and when it was made). A server
  // records what it serves in the feed, except from a build older than that one: another server
  // or a publish has moved the feed on. Null: recorded before this step.
  `
  ALTER TABLE published_sites ADD COLUMN build_id TEXT;
  ALTER TABLE published_sites ADD COLUMN built_at INTEGER;
  `,
  // 10: where a redirect pointed, in its own column; it was only in the attempt's words
  // (`redirect (302 to <url>) not followed: register the final URL`), taken out of them once here.
  `
  ALTER TABLE attempts ADD COLUMN redirect_to TEXT;
  UPDATE attempts SET redirect_to = substr(error, 18, length(error) - 17 - 38)
   WHERE status BETWEEN 300 AND 399 AND error LIKE 'redirect (___ to %) not followed: register the final URL';
  `,
  // 11: page checks: each acknowledged `published` or `updated` delivery's article page, checked on
  // the receiving site (src/delivery/page-verifier.ts). A row is written with its delivery when
  // one is to be checked ('awaiting'; 'off' when its site turned the checks off), falls due when
  // the delivery is acknowledged (`due_at`), and keeps what the last check found; `due_at` stays
  // set while checks are to come. Apart from deliveries: SQLite rewrites a whole row on update,
  // and a delivery's is updated at every claim and attempt.
  `
  CREATE TABLE page_checks (
    delivery_id TEXT PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    site_id     TEXT NOT NULL,
    slug        TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('awaiting', 'off', 'pending', 'live', 'render_problem', 'unverified', 'superseded')),
    plan        TEXT,             -- JSON: what the page must show (PageCheckPlan); null when off
    delay_ms    INTEGER NOT NULL DEFAULT 0, -- the first check this long after the delivery is acknowledged
    due_at      INTEGER,          -- epoch ms: the next check; null: none to come
    tries       INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER,
    lease_owner TEXT,
    checked_at  INTEGER,
    code        TEXT,             -- the failing check's code, or why the verifier could not tell
    message     TEXT,
    fix         TEXT,
    url         TEXT,             -- the page checked
    checks      TEXT              -- JSON: the four checks of the last check (StoredCheck[])
  ) STRICT;
  CREATE INDEX page_checks_site ON page_checks (site_id, slug, delivery_id);
  CREATE INDEX page_checks_due ON page_checks (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX page_checks_waiting ON page_checks (site_id, slug) WHERE due_at IS NOT NULL;
  CREATE INDEX page_checks_leased ON page_checks (site_id) WHERE lease_until IS NOT NULL;
  `,
];
