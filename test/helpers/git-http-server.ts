// A real smart-HTTP git server on loopback: git's own `http-backend` run as a CGI program for each
// request, over the bare repositories in one folder. It can ask for Basic credentials (and
// records what each request sent) and send its answers slowly, so that a fetch takes a while.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The Authorization header of every request, in order (undefined when none was sent). */
  authorizations: (string | undefined)[];
  /** Runs `during` once for each request while git on the other side waits for its answer. */
  duringRequest: ((req: http.IncomingMessage) => void) | null;
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** Bare repositories are served as `/<name>` from this folder. */
  root: string;
  /** Asked for with 401 until a request sends them. */
  credentials?: { username: string; password: string };
  /** Answers are sent at about this many bytes a second. */
  bytesPerSecond?: number;
}

export async function startGitHttpServer(opts: GitHttpServerOptions): Promise<GitHttpServer> {
  const expected = opts.credentials
    ? `Basic ${Buffer.from(`${opts.credentials.username}:${opts.credentials.password}`).toString('base64')}`
    : null;
  const state: GitHttpServer = { url: '', authorizations: [], duringRequest: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    state.authorizations.push(req.headers.authorization);
    state.duringRequest?.(req);
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url!, 'http://git');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: opts.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method!,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    const send = slowly(res, opts.bytesPerSecond);
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return send.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [name, ...value] = line.split(':');
        if (name!.toLowerCase() === 'status') status = Number(value.join(':').trim().split(' ')[0]);
        else headers[name!] = value.join(':').trim();
      }
      res.writeHead(status, headers);
      headersSent = true;
      send.write(head.subarray(end + 4));
    });
    cgi.on('close', () => send.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Writes to `res` at about `bytesPerSecond` (all at once without it), in order. */
function slowly(res: http.ServerResponse, bytesPerSecond: number | undefined): { write(b: Buffer): void; end(): void } {
  if (!bytesPerSecond) return { write: (b) => void res.write(b), end: () => void res.end() };
  const queue: (Buffer | null)[] = [];
  let timer: NodeJS.Timeout | null = null;
  const slice = Math.max(1, Math.floor(bytesPerSecond / 20));
  const pump = () => {
    timer = null;
    let budget = slice;
    while (budget > 0 && queue.length) {
      const next = queue[0]!;
      if (next === null) return void res.end();
      const part = next.subarray(0, budget);
      if (part.length === next.length) queue.shift();
      else queue[0] = next.subarray(part.length);
      budget -= part.length;
      if (!res.destroyed) res.write(part);
    }
    if (queue.length) timer = setTimeout(pump, 50);
  };
  const kick = () => {
    if (!timer) timer = setTimeout(pump, 0);
  };
  res.on('close', () => {
    if (timer) clearTimeout(timer);
    queue.length = 0;
  });
  return {
    write(b) {
      queue.push(b);
      kick();
    },
    end() {
      queue.push(null);
      kick();
    },
  };
}
