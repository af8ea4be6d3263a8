// The connection to PostgreSQL (QUIRE_DATABASE_URL): a pool, the one place that knows `pg`'s
// types and errors. A bad URL, an unreachable server, a refused login or a missing database is
// told as such, with the server named and the password never shown, before anything else runs.
import pg from 'pg';
import { StateDatabaseError } from './database-error.ts';

/** What the store runs its statements through: the pool (each on its own) or one transaction's connection. */
export interface Db {
  rows<R>(text: SqlText, values?: unknown[]): Promise<R[]>;
  /** Rows changed. */
  run(text: SqlText, values?: unknown[]): Promise<number>;
  /**
   * `work` as one transaction: its own, or the one this Db is bound to already. `plan`: planner
   * settings for the transaction (SET LOCAL), sent with its BEGIN (no round trip of their own);
   * inside a transaction already, they hold until it ends.
   */
  atomically<T>(work: (db: Db) => Promise<T>, plan?: PlannerSettings): Promise<T>;
}

/** Planner settings (`enable_sort: 'off'`…), for statements whose right plan must not depend on fresh statistics. */
export type PlannerSettings = Readonly<Record<string, 'on' | 'off'>>;

const setLocal = (plan: PlannerSettings) =>
  Object.entries(plan)
    .map(([name, value]) => `SET LOCAL ${name} = ${value}`)
    .join('; ');

/** A statement as text, or one made by prepared(). */
export type SqlText = string | PreparedStatement;
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
  /** Results in PostgreSQL's binary format: bytea as its bytes, not hex text (text and int4 columns only: int8 is parsed from text). */
  readonly binary?: boolean;
}

/**
 * A statement each connection parses and plans once, then only binds and runs (for those run
 * per delivery: parsing and planning them was a good part of the database's work). The name
 * must be unique among prepared statements.
 */
export function prepared(name: string, text: string, opts: { binary?: boolean } = {}): PreparedStatement {
  return { name: `quire_${name}`, text, ...opts };
}

const query = (text: SqlText, values: unknown[] | undefined): pg.QueryConfig =>
  typeof text === 'string'
    ? { text, values }
    : { name: text.name, text: text.text, values, ...(text.binary ? { binary: true } : {}) };

// bigint (epoch milliseconds, counts) as numbers: every one Quire stores is far below 2^53.
// bytea in binary results as a Buffer: `pg` hands binary fields over as a Buffer, and its default
// for a type it has no binary parser for makes a string of it (a body sent as a string cost the
// HTTPS client more than its bytes: the request was written through a string conversion). `pg`
// reads each field as UTF-8 on the way, so only UTF-8 bytes come back as they went in: what the
// outbox keeps in bytea (deliveries' JSON bodies) is.
const bytesAsTheyCame = (v: Buffer) => v;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (v: string) => Number(v)
      : oid === pg.types.builtins.BYTEA && format === 'binary'
        ? bytesAsTheyCame
        : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The URL without its password, to name the server in a message. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${decodeURIComponent(u.pathname.slice(1)) || '(default database)'}${u.username ? ` as ${decodeURIComponent(u.username)}` : ''}`;
  } catch {
    return 'QUIRE_DATABASE_URL';
  }
}

export function connectionConfig(url: string): pg.PoolConfig {
  return { connectionString: url, types, connectionTimeoutMillis: 10_000, application_name: 'quire' };
}

export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(url), max });
  // An idle connection the server closed (a restart): the pool drops it and opens another.
  pool.on('error', () => undefined);
  return pool;
}

/** A Db over the pool, each statement on its own; `ready` is awaited before the first. */
export function poolDb(pool: pg.Pool, ready: () => Promise<void>): Db {
  const db: Db = {
    async rows(text, values) {
      await ready();
      return (await pool.query(query(text, values))).rows;
    },
    async run(text, values) {
      await ready();
      return (await pool.query(query(text, values))).rowCount ?? 0;
    },
    async atomically(work, plan) {
      await ready();
      return inTransaction(pool, work, plan);
    },
  };
  return db;
}

/** Statements run one by one, each its own transaction. */
export type Statements = Pick<Db, 'rows' | 'run'>;

/**
 * One connection of its own, opened at first use with `plan` set for its whole session (in the
 * startup message: no round trip), each statement its own transaction: for claims, made back to
 * back by every sender, one round trip each instead of three on a pool's connection (BEGIN with
 * SET LOCAL, the statement, COMMIT). `name`: its application_name (pg_stat_activity). A
 * connection that failed is dropped; the next statement opens another.
 */
export function dedicatedConnection(
  url: string,
  name: string,
  plan: PlannerSettings,
  ready: () => Promise<void>,
): Statements & { close(): Promise<void> } {
  let opening: Promise<pg.Client> | null = null;
  let closed = false;
  const options = Object.entries(plan)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const connection = () =>
    (opening ??= (async () => {
      // A server that could not be used yet: the next statement tries again.
      await ready().catch((e: unknown) => {
        opening = null;
        throw e;
      });
      const mine = opening;
      const client = new pg.Client({ ...connectionConfig(url), options, application_name: name });
      const drop = () => {
        if (opening === mine) opening = null;
        void client.end().catch(() => undefined);
      };
      client.on('error', drop);
      client.on('end', drop);
      try {
        await client.connect();
      } catch (e) {
        drop();
        throw explainConnectionError(e, url);
      }
      return client;
    })());
  // One statement at a time, in the order asked (`pg` would queue them too, but is to stop).
  let last: Promise<unknown> = Promise.resolve();
  const run = (text: SqlText, values?: unknown[]) => {
    if (closed) return Promise.reject(new Error('the state store has been closed'));
    const result = last.catch(() => undefined).then(async () => (await connection()).query(query(text, values)));
    last = result;
    return result;
  };
  return {
    rows: async (text, values) => (await run(text, values)).rows,
    run: async (text, values) => (await run(text, values)).rowCount ?? 0,
    async close() {
      closed = true;
      const open = opening;
      opening = null;
      await open
        ?.then(
          (c) => c.end(),
          () => undefined,
        )
        .catch(() => undefined);
    },
  };
}

/** Runs `work` in a transaction on one connection of the pool. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (db: Db) => Promise<T>,
  plan?: PlannerSettings,
): Promise<T> {
  const client = await pool.connect().catch((e: unknown) => {
    throw explainConnectionError(e, '');
  });
  try {
    await client.query(plan ? `BEGIN; ${setLocal(plan)}` : 'BEGIN');
    const result = await work(clientDb(client));
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** A Db bound to one connection inside its transaction. */
export function clientDb(client: pg.PoolClient | pg.Client): Db {
  const db: Db = {
    rows: async (text, values) => (await client.query(query(text, values))).rows,
    run: async (text, values) => (await client.query(query(text, values))).rowCount ?? 0,
    atomically: async (work, plan) => {
      if (plan) await client.query(setLocal(plan));
      return work(db);
    },
  };
  return db;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** A connection failure as the error Quire reports; anything else as it is. */
export function explainConnectionError(e: unknown, url: string): unknown {
  if (e instanceof StateDatabaseError) return e;
  const err = e as { code?: string; message?: string };
  const where = url ? describeUrl(url) : 'the database';
  const why = err.message ?? String(e);
  if (err.code && UNREACHABLE.has(err.code))
    return new StateDatabaseError(
      'DATABASE_UNREACHABLE',
      `PostgreSQL at ${where} cannot be reached (${why}): is the server running, and are the host and port in QUIRE_DATABASE_URL right?`,
      { cause: e },
    );
  if (/timeout/i.test(why) && !err.code)
    return new StateDatabaseError(
      'DATABASE_UNREACHABLE',
      `PostgreSQL at ${where} did not answer in time (${why}): is the server running, and are the host and port in QUIRE_DATABASE_URL right?`,
      { cause: e },
    );
  // pg's words when the peer closes before a PostgreSQL answer: another service on that port.
  if (/^Connection terminated unexpectedly$/.test(why) && !err.code)
    return new StateDatabaseError(
      'DATABASE_UNREACHABLE',
      `PostgreSQL at ${where} cannot be reached: the connection was closed before any answer (${why}); is it PostgreSQL that listens at the host and port in QUIRE_DATABASE_URL?`,
      { cause: e },
    );
  if (/does not support SSL/i.test(why) && !err.code)
    return new StateDatabaseError(
      'DATABASE_UNREACHABLE',
      `PostgreSQL at ${where} cannot be reached over TLS (${why}): remove sslmode from QUIRE_DATABASE_URL, or turn ssl on in the server`,
      { cause: e },
    );
  if (err.code === '28P01' || err.code === '28000')
    return new StateDatabaseError(
      'DATABASE_LOGIN_FAILED',
      `PostgreSQL at ${where} refused the login (${why}): check the user and password in QUIRE_DATABASE_URL`,
      { cause: e },
    );
  if (err.code === '3D000')
    return new StateDatabaseError(
      'DATABASE_NOT_FOUND',
      `PostgreSQL at ${where}: the database does not exist (${why}); create it (createdb) or correct QUIRE_DATABASE_URL`,
      { cause: e },
    );
  return e;
}
