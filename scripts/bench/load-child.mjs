// The load generator of the API bench, run in its own process so that it does not share an event
// loop with the server it measures. Reads one job as JSON from argv[2], prints the result as JSON.
//   {mode: 'saturate', url, headers, connections, seconds}: autocannon, closed loop.
//   {mode: 'rate', url, headers, connections, seconds, rate}: open loop at a fixed rate (below).
//
// Why not autocannon for the fixed rate: its rate limit lets each connection send back to back
// until it has made its share for the current second, then idles until the next one, so a "half
// rate" run saturates the server for half of every second; and it corrects for coordinated
// omission with an expected interval of 1 ms whatever the rate. Here requests are due at even
// intervals, and each latency runs from when the request was due, not from when a free
// connection sent it: queueing in the client counts against the server, as it would for users.
import net from 'node:net';
import autocannon from 'autocannon';

const job = JSON.parse(process.argv[2]);

if (job.mode === 'saturate') {
  autocannon({ url: job.url, headers: job.headers, connections: job.connections, duration: job.seconds }, (err, r) => {
    if (err) throw err;
    // 200s, or 304s for a conditional request: anything else means the run measured the wrong thing.
    const ok = r.errors === 0 && r.timeouts === 0 && r['1xx'] + r['4xx'] + r['5xx'] === 0;
    process.stdout.write(
      JSON.stringify({
        reqPerSec: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        ok,
        errors: r.errors,
        timeouts: r.timeouts,
      }),
    );
  });
} else if (job.mode === 'rate') {
  process.stdout.write(JSON.stringify(await openLoop(job)));
} else throw new Error(`unknown mode ${job.mode}`);

/** Open-loop load at `rate` requests per second for `seconds`, after a one-second warm-up. */
async function openLoop({ url, headers, connections, seconds, rate }) {
  const { hostname, port, pathname } = new URL(url);
  const request = Buffer.from(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
  const warmup = rate; // the first second's requests are sent but not recorded
  const total = warmup + Math.round(rate * seconds);
  const latencies = new Float64Array(total - warmup);
  const statuses = new Map();
  const idle = [];
  const waiting = []; // indexes of due requests with no free connection yet
  let completed = 0;
  let failed = null;

  const sockets = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise((resolve, reject) => {
          const socket = net.connect({ host: hostname, port: Number(port), noDelay: true }, () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const start = performance.now() + 10;
  const dueAt = (i) => start + (i * 1000) / rate;
  let done;
  const finished = new Promise((resolve) => (done = resolve));

  const send = (conn, i) => {
    conn.current = i;
    conn.socket.write(request);
  };
  for (const socket of sockets) {
    const conn = { socket, current: -1, response: newResponse() };
    socket.on('data', (chunk) => {
      const status = conn.response.take(chunk);
      if (!status) return;
      conn.response = newResponse();
      const i = conn.current;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (i >= warmup) latencies[i - warmup] = performance.now() - dueAt(i);
      if (++completed === total) return done();
      if (waiting.length) send(conn, waiting.shift());
      else idle.push(conn);
    });
    socket.on('error', (err) => {
      failed = err;
      done();
    });
    idle.push(conn);
  }

  let next = 0;
  const tick = () => {
    const now = performance.now();
    while (next < total && dueAt(next) <= now) {
      const conn = idle.pop();
      if (conn) send(conn, next);
      else waiting.push(next);
      next++;
    }
    if (next < total) setTimeout(tick, Math.max(0, dueAt(next) - performance.now()));
  };
  setTimeout(tick, 10);
  await finished;
  for (const s of sockets) s.destroy();
  if (failed) throw failed;

  const sorted = Array.from(latencies).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const elapsed = (performance.now() - dueAt(warmup)) / 1000;
  return {
    reqPerSec: sorted.length / elapsed,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: sorted.at(-1),
    ok: statuses.size === 1 && (statuses.has(200) || statuses.has(304)),
    statuses: Object.fromEntries(statuses),
  };
}

/**
 * One response read as it arrives: take() returns its status code once all of it is in (by
 * Content-Length, or the last chunk of a chunked body), else 0. No pipelining: one at a time.
 */
function newResponse() {
  let head = null; // bytes until the header block is complete
  let status = 0;
  let remaining = -1; // body bytes still due; -1 while the headers are incomplete
  let chunked = false;
  let tail = '';
  return {
    take(chunk) {
      if (remaining < 0) {
        head = head ? Buffer.concat([head, chunk]) : chunk;
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return 0;
        const text = head.toString('latin1', 0, end);
        status = Number(text.slice(9, 12));
        const length = /\r\ncontent-length: *(\d+)/i.exec(text);
        chunked = !length && /\r\ntransfer-encoding: *chunked/i.test(text);
        remaining = length ? Number(length[1]) : 0;
        chunk = head.subarray(end + 4);
        head = null;
      }
      if (chunked) {
        tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 5))).slice(-5);
        return tail === '0\r\n\r\n' ? status : 0;
      }
      remaining -= chunk.length;
      return remaining <= 0 ? status : 0;
    },
  };
}
