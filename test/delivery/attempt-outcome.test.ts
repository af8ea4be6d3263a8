// What an attempt came to is classified once, from what the exchange gave, and carried as data:
// a redirect's target is a field (recorded in its own column, never read back from the words),
// a refusal carries its problem code, the log line's kind and the explanation come from it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { logKind, type AttemptOutcome } from '../../src/delivery/attempt-outcome.ts';
import { attemptRecordOf, outcomeOfRecord } from '../../src/delivery/attempt-record.ts';
import { classifyExchange } from '../../src/delivery/classify-attempt.ts';
import { explainAttempt, explainOutcome } from '../../src/delivery/explain-attempt.ts';
import { retryDecisionOf } from '../../src/delivery/retry-policy.ts';
import type { HttpOutcome } from '../../src/net/safe-client.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { openStateStore } from '../../src/store/state-store.ts';
import { openTestStore } from '../helpers/test-store.ts';

const NOW = Date.UTC(2026, 0, 1);
const answer = (status: number, headers: Record<string, string> = {}, body = ''): HttpOutcome => ({
  ok: true,
  status,
  headers,
  body: Buffer.from(body),
  truncated: false,
  durationMs: 12,
  address: '192.0.2.1',
});
const noAnswer = (kind: Extract<HttpOutcome, { ok: false }>['kind'], message: string): HttpOutcome => ({
  ok: false,
  kind,
  message,
  durationMs: 12,
});

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('classifying an exchange', () => {
  it('reads an answer by its status: delivered, a redirect with its target, a failure with its retry class and code', () => {
    expect(classifyExchange(answer(201, {}, '{"url":"https://site.example.com/a","id":"7"}'), NOW)).toEqual({
      kind: 'delivered',
      status: 201,
      replyUrl: 'https://site.example.com/a',
      replyId: '7',
      note: null,
    });
    expect(classifyExchange(answer(302, { location: 'https://elsewhere.example.com/\u0007hook' }), NOW)).toEqual({
      kind: 'redirect',
      status: 302,
      location: 'https://elsewhere.example.com/hook',
    });
    expect(classifyExchange(answer(503, { 'retry-after': '30' }, 'busy'), NOW)).toEqual({
      kind: 'http_failure',
      status: 503,
      retry: { kind: 'retry', retryAfterMs: 30_000 },
      code: 'RECEIVER_ERROR',
      message: 'HTTP 503 — busy',
    });
    expect(classifyExchange(answer(410), NOW)).toMatchObject({
      kind: 'http_failure',
      retry: { kind: 'fail', disable: true },
      code: 'GONE',
      message: 'HTTP 410: the receiver is gone; webhook disabled',
    });
    expect(classifyExchange(answer(403), NOW)).toMatchObject({
      code: 'REJECTED_SECRET',
      retry: { kind: 'fail', disable: false },
    });
    expect(classifyExchange(answer(422), NOW)).toMatchObject({ code: 'REJECTED' });
  });

  it('reads no answer as a refusal with its problem code, a time-out or a network failure', () => {
    expect(classifyExchange(noAnswer('not_https', 'webhook URLs must use https'), NOW)).toEqual({
      kind: 'refused',
      code: 'URL_NOT_HTTPS',
      message: 'webhook URLs must use https',
    });
    expect(classifyExchange(noAnswer('non_public', 'x resolves to 10.0.0.1'), NOW)).toMatchObject({
      kind: 'refused',
      code: 'URL_HOST_NOT_PUBLIC',
    });
    expect(classifyExchange(noAnswer('timeout', 'no complete response'), NOW)).toEqual({
      kind: 'timeout',
      message: 'no complete response',
    });
    expect(classifyExchange(noAnswer('tls', 'the TLS handshake failed'), NOW)).toEqual({
      kind: 'network',
      failure: 'tls',
      message: 'the TLS handshake failed',
    });
  });

  it('decides what becomes of the delivery from the outcome alone', () => {
    expect(retryDecisionOf(classifyExchange(answer(204), NOW))).toEqual({ kind: 'success' });
    expect(retryDecisionOf(classifyExchange(answer(307), NOW))).toEqual({ kind: 'fail', disable: false });
    expect(retryDecisionOf(classifyExchange(noAnswer('credentials', 'no'), NOW))).toEqual({
      kind: 'fail',
      disable: false,
    });
    expect(retryDecisionOf(classifyExchange(noAnswer('non_public', 'no'), NOW))).toEqual({
      kind: 'retry',
      retryAfterMs: null,
    });
    expect(retryDecisionOf(classifyExchange(noAnswer('reset', 'closed'), NOW))).toEqual({
      kind: 'retry',
      retryAfterMs: null,
    });
  });

  it('names each failure for the log line as before (`http_503`, `redirect`, `not_https`)', () => {
    const kinds = [
      answer(200),
      answer(503),
      answer(301),
      noAnswer('not_https', 'x'),
      noAnswer('dns', 'x'),
      noAnswer('timeout', 'x'),
    ].map((r) => logKind(classifyExchange(r, NOW)));
    expect(kinds).toEqual([null, 'http_503', 'redirect', 'not_https', 'dns', 'timeout']);
    expect(logKind({ kind: 'no_webhook', message: 'no webhook registered for this site' })).toBe('no_webhook');
  });
});

describe('an outcome as the store keeps it', () => {
  const base = { url: 'https://receiver.example.com/hook', startedAt: NOW, durationMs: 12 };
  const outcomes: AttemptOutcome[] = [
    { kind: 'delivered', status: 200, replyUrl: 'https://site.example.com/a', replyId: '7', note: null },
    { kind: 'delivered', status: 204, replyUrl: null, replyId: null, note: 'reply ignored: not JSON' },
    {
      kind: 'http_failure',
      status: 500,
      retry: { kind: 'retry', retryAfterMs: null },
      code: 'RECEIVER_ERROR',
      message: 'HTTP 500 — oops',
    },
    {
      kind: 'redirect',
      status: 301,
      location: 'https://elsewhere.example.com/hook) not followed: register the final URL',
    },
    { kind: 'redirect', status: 308, location: null },
    { kind: 'refused', code: 'URL_HAS_CREDENTIALS', message: 'webhook URLs must not contain a user name or password' },
    { kind: 'network', failure: 'refused', message: 'receiver.example.com refused the connection (ECONNREFUSED)' },
    { kind: 'timeout', message: 'no complete response from receiver.example.com within 300 ms' },
    { kind: 'no_webhook', message: 'no webhook registered for this site' },
  ];

  it('is read back from its record as it was', () => {
    for (const outcome of outcomes) expect(outcomeOfRecord(attemptRecordOf(base, outcome))).toEqual(outcome);
  });

  it('keeps the words people read as they were', () => {
    expect(attemptRecordOf(base, outcomes[3]!)).toMatchObject({
      status: 301,
      error:
        'redirect (301 to https://elsewhere.example.com/hook) not followed: register the final URL) not followed: register the final URL',
      errorKind: null,
    });
    expect(attemptRecordOf(base, outcomes[5]!)).toMatchObject({
      status: null,
      error: 'webhook URLs must not contain a user name or password',
      errorKind: 'credentials',
    });
  });

  it("keeps a redirect's target in the store, and explains it from there", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-outcome-'));
    const store = openTestStore(dir, 's'.repeat(40));
    try {
      const id = await store.outbox.enqueue(
        { siteId: 'one', slug: 'a', event: 'published', body: Buffer.from('{}'), origin: 'publish' },
        NOW,
      );
      const outcome = classifyExchange(answer(302, { location: 'https://elsewhere.example.com/hook' }), NOW);
      await store.outbox.recordAttempt(id, attemptRecordOf(base, outcome), { state: 'failed' }, NOW);
      const [logged] = await store.outbox.attemptLog();
      expect(logged).toMatchObject({ status: 302, redirectTo: 'https://elsewhere.example.com/hook' });
      expect(outcomeOfRecord(logged!)).toEqual(outcome);
      expect(explainAttempt(logged!, { willRetry: false })).toEqual(
        explainOutcome(outcome, { willRetry: false, durationMs: 12 }),
      );
      expect(explainAttempt(logged!, { willRetry: false }).message).toContain(
        '(HTTP 302 to https://elsewhere.example.com/hook)',
      );
    } finally {
      await store.close();
    }
  });

  it('of a redirect recorded before the column existed is taken out of its words, once', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-outcome-'));
    const old = new Database(path.join(dir, 'quire.db'));
    MIGRATIONS.slice(0, 9).forEach((sql: string) => old.exec(sql));
    old.pragma('user_version = 9');
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
      301,
      'redirect (301 to https://r.example.com/new?a=(1)) not followed: register the final URL',
    );
    insert.run('dlv_1', 'https://r.example.com/', 2, 5, 302, 'redirect (302) not followed: register the final URL');
    insert.run('dlv_1', 'https://r.example.com/', 3, 5, 503, 'HTTP 503: busy');
    old.close();
    const store = openStateStore(dir, 's'.repeat(40));
    try {
      const log = (await store.outbox.attemptLog()).reverse();
      expect(log.map((a) => a.redirectTo)).toEqual(['https://r.example.com/new?a=(1)', null, null]);
      expect(log.map((a) => a.error)).toEqual([
        'redirect (301 to https://r.example.com/new?a=(1)) not followed: register the final URL',
        'redirect (302) not followed: register the final URL',
        'HTTP 503: busy',
      ]);
    } finally {
      await store.close();
    }
  });
});
