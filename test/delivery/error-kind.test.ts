// A failed attempt's network error kind is a field of its record and a column of the state
// store, not the start of its error text: explained from the field, shown with the kind in front,
// and attempts recorded before the column existed are split once when the store is opened.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { explainAttempt } from '../../src/delivery/explain-attempt.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { attemptErrorText, openStateStore, type AttemptRecord } from '../../src/store/state-store.ts';

const SECRET = 'a-server-secret-of-at-least-32-characters';
const failed = (errorKind: AttemptRecord['errorKind'], error: string): AttemptRecord => ({
  url: 'https://receiver.example.com/hook',
  startedAt: Date.UTC(2026, 0, 1),
  durationMs: 300,
  status: null,
  error,
  errorKind,
  replyUrl: null,
  replyId: null,
});

let dir: string | undefined;

/** The attempts as stored, read from the file itself. */
function rowsOf(stateDir: string): { error: string | null; error_kind: string | null }[] {
  const db = new Database(path.join(stateDir, 'quire.db'), { readonly: true });
  try {
    return db
      .prepare<[], { error: string | null; error_kind: string | null }>(
        'SELECT error, error_kind FROM attempts ORDER BY started_at',
      )
      .all();
  } finally {
    db.close();
  }
}
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the network error kind of an attempt', () => {
  it('is what the explanation is chosen by, whatever the words say', () => {
    // The words start like another kind: only the field counts.
    const refused = explainAttempt(
      failed('refused', 'dns: receiver.example.com refused the connection (ECONNREFUSED)'),
      { willRetry: true },
    );
    expect(refused.code).toBe('CONNECTION_REFUSED');
    expect(refused.message).toContain('(dns: receiver.example.com refused the connection (ECONNREFUSED))');
    expect(
      explainAttempt(failed('timeout', 'no complete response from receiver.example.com within 300 ms'), {
        willRetry: true,
      }),
    ).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining(
        'No answer in time (no complete response from receiver.example.com within 300 ms)',
      ),
    });
    expect(
      explainAttempt(failed('credentials', 'webhook URLs must not contain a user name or password'), {
        willRetry: false,
      }).code,
    ).toBe('URL_INVALID');
    expect(explainAttempt(failed(null, 'no webhook registered for this site'), { willRetry: false })).toMatchObject({
      code: 'NETWORK_ERROR',
      message: 'The request failed: no webhook registered for this site.',
    });
  });

  it('is stored in its own column; the text people read keeps it in front', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-error-kind-'));
    const store = openStateStore(dir!, SECRET);
    try {
      const now = Date.UTC(2026, 0, 1);
      const id = await store.outbox.enqueue(
        { siteId: 'one', slug: 'a', event: 'published', body: Buffer.from('{}'), origin: 'publish' },
        now,
      );
      const attempt = failed('timeout', 'no complete response from receiver.example.com within 300 ms');
      await store.outbox.recordAttempt(id, attempt, { state: 'pending', nextAttemptAt: now + 60_000 }, now);
      expect(rowsOf(dir)).toEqual([{ error: attempt.error, error_kind: 'timeout' }]);
      const [logged] = await store.outbox.attemptLog();
      expect(logged).toMatchObject({ error: attempt.error, errorKind: 'timeout' });
      expect(attemptErrorText(logged!)).toBe('timeout: no complete response from receiver.example.com within 300 ms');
      expect((await store.outbox.get(id))?.lastError).toBe(
        'timeout: no complete response from receiver.example.com within 300 ms',
      );
    } finally {
      await store.close();
    }
  });

  it('of attempts recorded before the column existed is split from their text, once', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-error-kind-'));
    // A store at schema version 2, as the previous release left it.
    const old = new Database(path.join(dir!, 'quire.db'));
    MIGRATIONS.slice(0, 2).forEach((sql: string) => old.exec(sql));
    old.pragma('user_version = 2');
    old
      .prepare(
        `INSERT INTO deliveries (id, site_id, slug, event, origin, state, created_at) VALUES ('dlv_1', 'one', 'a', 'published', 'publish', 'failed', 0)`,
      )
      .run();
    const insert = old.prepare(
      'INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?, ?)',
    );
    insert.run(
      'dlv_1',
      'https://r.example.com/',
      1,
      5,
      null,
      'tls: the TLS handshake with r.example.com failed: the certificate has expired (CERT_HAS_EXPIRED)',
    );
    insert.run('dlv_1', 'https://r.example.com/', 2, 5, null, 'no webhook registered for this site');
    insert.run('dlv_1', 'https://r.example.com/', 3, 5, 503, 'HTTP 503: busy');
    old.close();
    const store = openStateStore(dir!, SECRET);
    try {
      expect(rowsOf(dir!)).toEqual([
        {
          error: 'the TLS handshake with r.example.com failed: the certificate has expired (CERT_HAS_EXPIRED)',
          error_kind: 'tls',
        },
        { error: 'no webhook registered for this site', error_kind: null },
        { error: 'HTTP 503: busy', error_kind: null },
      ]);
    } finally {
      await store.close();
    }
  });
});
