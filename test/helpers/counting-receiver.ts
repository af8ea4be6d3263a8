// One HTTPS receiver on loopback for the tests of delivery fleets: it counts the requests it has
// open (in all, per group of its paths, per article), until each one's answer is sent or its
// connection closes (a killed sender), and may hold every request until the fleets under test
// have reached a given number open at once, so that they are measured sending side by side.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { testPki } from './https-receiver.ts';

export interface CountingReceiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** Requests in the order they arrived: the delivery id, the path, the article. */
  arrivals: { id: string; path: string; slug: string }[];
  maxOpen: number;
  /** The most open at once in each group (see groupOf). */
  maxOpenOf: Map<string, number>;
  /** Times a request arrived while another for the same path and article was open. */
  overlaps: number;
  /** Whether the hold ended by its time-out rather than by holdUntil. */
  holdTimedOut: boolean;
  close(): Promise<void>;
}

export interface CountingOptions {
  /** How long each request is kept open before its 200. */
  delayMs: number;
  /** Which group a request counts in, by its path (default: one group). */
  groupOf?: (path: string) => string;
  /** Requests are held (unanswered) until this is true of the open counts per group, or holdTimeoutMs after the first. */
  holdUntil?: (openOf: ReadonlyMap<string, number>) => boolean;
  holdTimeoutMs?: number;
}

export async function startCountingReceiver(opts: CountingOptions): Promise<CountingReceiver> {
  const pki = await testPki();
  const groupOf = opts.groupOf ?? (() => '');
  let open = 0;
  const openOf = new Map<string, number>();
  const openPerArticle = new Map<string, number>();
  let held: (() => void)[] | null = opts.holdUntil ? [] : null;
  let holdTimer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(holdTimer);
    for (const answer of held ?? []) answer();
    held = null;
  };
  const r: CountingReceiver = {
    origin: '',
    arrivals: [],
    maxOpen: 0,
    maxOpenOf: new Map(),
    overlaps: 0,
    holdTimedOut: false,
    close: async () => undefined,
  };
  const server = https.createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { slug?: string; article?: { slug?: string } };
      const slug = String(body.slug ?? body.article?.slug);
      const reqPath = req.url ?? '';
      const group = groupOf(reqPath);
      const article = `${reqPath} ${slug}`;
      r.arrivals.push({ id: String(req.headers['x-quire-delivery']), path: reqPath, slug });
      open++;
      r.maxOpen = Math.max(r.maxOpen, open);
      openOf.set(group, (openOf.get(group) ?? 0) + 1);
      r.maxOpenOf.set(group, Math.max(r.maxOpenOf.get(group) ?? 0, openOf.get(group)!));
      if (openPerArticle.get(article)) r.overlaps++;
      openPerArticle.set(article, (openPerArticle.get(article) ?? 0) + 1);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        open--;
        openOf.set(group, openOf.get(group)! - 1);
        openPerArticle.set(article, openPerArticle.get(article)! - 1);
      };
      res.on('close', end);
      const answer = () =>
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(200).end('{}');
          end();
        }, opts.delayMs);
      if (held === null) return void answer();
      held.push(answer);
      if (opts.holdUntil!(openOf)) return release();
      holdTimer ??= setTimeout(() => {
        r.holdTimedOut = true;
        release();
      }, opts.holdTimeoutMs ?? 20_000);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise((resolve) => {
      clearTimeout(holdTimer);
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return r;
}
