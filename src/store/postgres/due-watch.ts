// Wakes idle senders when deliveries become due (LISTEN/NOTIFY): a process that queues deliveries
// or makes them due now notifies DUE_CHANNEL in its transaction (delivered at commit), and a
// worker listening on a connection of its own looks at once instead of at its next poll. The
// poll stays: a notification can be missed (the listening connection dropped and not yet back).
import pg from 'pg';
import { connectionConfig } from './connection.ts';

export const DUE_CHANNEL = 'quire_due';
/** `SELECT … FROM (NOTIFY_DUE) AS wake`: notifies as part of a statement, with no round trip of its own. */
export const NOTIFY_DUE = `SELECT pg_notify('${DUE_CHANNEL}', '')`;

const RECONNECT_MS = 5_000;

/** Listens on DUE_CHANNEL until stopped, reconnecting after a dropped connection; `wake` on each notification. */
export async function watchDue(
  url: string,
  ready: () => Promise<void>,
  wake: () => void,
): Promise<() => Promise<void>> {
  await ready();
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const listen = async () => {
    const c = new pg.Client(connectionConfig(url));
    client = c;
    const again = () => {
      if (stopped || client !== c) return;
      client = null;
      void c.end().catch(() => undefined);
      // A failed attempt schedules the next itself (below), through its own client's `again`.
      retry = setTimeout(() => void listen().catch(() => undefined), RECONNECT_MS);
      retry.unref();
      wake(); // a notification may have been missed meanwhile
    };
    c.on('error', again);
    c.on('end', again);
    c.on('notification', (n) => {
      if (n.channel === DUE_CHANNEL) wake();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${DUE_CHANNEL}`);
    } catch (err) {
      again();
      throw err;
    }
  };
  try {
    await listen();
  } catch (err) {
    stopped = true; // the first connection is the caller's to report: no retries behind its back
    if (retry) clearTimeout(retry);
    throw err;
  }
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await (client as pg.Client | null)?.end().catch(() => undefined);
  };
}
