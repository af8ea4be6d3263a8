// The running server (`quire start`) caps request bodies before reading them and throttles
// wrong admin tokens per client. Clients are told apart by their loopback source address.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ADMIN_TOKEN = 'admin-token-for-limit-tests-0001';
const MAX_BODY = 4096;

let p: TempProject;
let server: Awaited<ReturnType<typeof startCli>>;
let port: number;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
  server = await startCli(
    ['start'],
    {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
      QUIRE_MAX_BODY_BYTES: String(MAX_BODY),
      PORT: '0',
    },
    /Publishing app: http:\/\/localhost:(\d+)\/admin /,
  );
  port = Number(server.match[1]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  p?.cleanup();
});

/** Sends raw request bytes, then `more` after a pause; resolves with what came back once the server closes. */
function raw(head: string, more: (socket: net.Socket) => void = () => {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('error', () => {}); // the server may reset a connection whose body it refused
    socket.on('close', () => resolve(data));
    socket.write(head, () => more(socket));
  });
}

function postForm(
  path: string,
  form: Record<string, string>,
  from: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location?: string }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode!, ...(res.headers.location ? { location: res.headers.location } : {}) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('request bodies', () => {
  it('answers 413 to a declared body over the cap without waiting for it', async () => {
    // 500 MB announced, 10 bytes sent: the answer comes without the rest.
    const reply = await raw(
      `POST /admin/sign-in HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500000000\r\n\r\ntoken=abcd`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    // Under /admin the refusal is a page of the app, never the API's JSON.
    expect(reply).toMatch(/content-type: text\/html/i);
    expect(reply).toContain('larger than');
    expect(reply).not.toContain('"code"');
  });

  it('answers the API JSON 413 outside /admin', async () => {
    const reply = await raw(
      `POST /v1/articles HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Length: 500000000\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toContain('"code":"BODY_TOO_LARGE"');
  });

  it('answers 413 to a chunked body once it passes the cap', async () => {
    const chunk = 'a'.repeat(1000);
    const reply = await raw(
      `POST /admin/sign-in HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`,
      (socket) => {
        for (let i = 0; i < 6; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        // never finished: the server must not wait for the end
      },
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/content-type: text\/html/i);
  });

  it('caps the admin forms too, before the session is looked at', async () => {
    const reply = await raw(
      `POST /admin/sites/one/webhook HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Length: 100000000\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('still reads a body within the cap', async () => {
    expect(await postForm('/admin/sign-in', { token: 'x'.repeat(MAX_BODY - 100) }, '127.0.0.9')).toEqual({
      status: 401,
    });
  });
});

describe('admin sign-in throttle', () => {
  it('throttles the client sending wrong tokens, not the owner signing in from elsewhere, whatever X-Forwarded-For says', async () => {
    for (let i = 0; i < 10; i++)
      expect((await postForm('/admin/sign-in', { token: `wrong-${i}` }, '127.0.0.2')).status).toBe(401);
    expect((await postForm('/admin/sign-in', { token: 'wrong-again' }, '127.0.0.2')).status).toBe(429);
    // A header the client writes itself does not make it someone else.
    expect(
      (await postForm('/admin/sign-in', { token: 'wrong-again' }, '127.0.0.2', { 'x-forwarded-for': '203.0.113.7' }))
        .status,
    ).toBe(429);
    expect((await postForm('/admin/sign-in', { token: ADMIN_TOKEN }, '127.0.0.2')).status).toBe(429);

    expect(await postForm('/admin/sign-in', { token: ADMIN_TOKEN }, '127.0.0.3')).toEqual({
      status: 303,
      location: '/admin',
    });
    expect((await postForm('/admin/sign-in', { token: 'a-wrong-one' }, '127.0.0.4')).status).toBe(401);
  });
});
