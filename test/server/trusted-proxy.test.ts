// Behind an HTTPS reverse proxy: the running server (`quire start`) takes sign-in posted from the
// public URL's origin, reads X-Forwarded-* only from a peer QUIRE_TRUST_PROXY names, and keys
// the sign-in throttle on the client that proxy reports. Peers are told apart by their loopback
// source address (127.0.0.1 is the proxy; 127.0.0.5, .6 … are clients reaching Quire directly).
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ADMIN_TOKEN = 'admin-token-for-proxy-tests-0001';

interface Running {
  p: TempProject;
  server: Awaited<ReturnType<typeof startCli>>;
  port: number;
}

async function startQuire(env: Record<string, string>): Promise<Running> {
  const p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
  const server = await startCli(
    ['start'],
    {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
      PORT: '0',
      ...env,
    },
    /Quire Content API on \S+[\s\S]*Publishing app: \S+\/admin /,
  );
  // With a public URL the server says where it listens; without, the URL is http://localhost:<port>.
  const m =
    /Listening on 127\.0\.0\.1:(\d+)/.exec(server.output()) ??
    /Content API on http:\/\/localhost:(\d+)/.exec(server.output());
  if (!m) throw new Error(`no port in:\n${server.output()}`);
  return { p, server, port: Number(m[1]) };
}

interface Reply {
  status: number;
  location?: string;
  setCookie: string[];
}

/** A form POST from `from` (a loopback source address) with the headers a browser or proxy sends. */
function postSignIn(port: number, token: string, from: string, headers: Record<string, string> = {}): Promise<Reply> {
  const body = new URLSearchParams({ token }).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/admin/sign-in',
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
          resolve({
            status: res.statusCode!,
            ...(res.headers.location ? { location: res.headers.location } : {}),
            setCookie: res.headers['set-cookie'] ?? [],
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A `quire start` with these settings for the tests of the calling `describe`. */
function useQuire(env: Record<string, string>): () => Running {
  let q: Running | undefined;
  beforeAll(async () => {
    q = await startQuire(env);
  }, 60_000);
  afterAll(async () => {
    await q?.server.stop();
    q?.p.cleanup();
  });
  return () => q!;
}

/** What a browser on https://quire.test sends when its sign-in form is posted. */
const FROM_THE_PUBLIC_PAGE = { origin: 'https://quire.test', 'sec-fetch-site': 'same-origin' };

describe('QUIRE_PUBLIC_URL behind an HTTPS proxy (no proxy trusted)', () => {
  const quire = useQuire({ QUIRE_PUBLIC_URL: 'https://quire.test' });

  it("takes a sign-in posted from the public URL's page, with a Secure cookie, though it arrived as http", async () => {
    // A proxy that terminates TLS and passes the request on as plain http, Host kept.
    const reply = await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', {
      host: 'quire.test',
      ...FROM_THE_PUBLIC_PAGE,
    });
    expect(reply).toMatchObject({ status: 303, location: '/admin' });
    expect(reply.setCookie.join('\n')).toMatch(/quire_admin=[^;]+;.*\bSecure\b/i);
    // And one that passes its upstream address as Host.
    expect(
      (
        await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', {
          host: `127.0.0.1:${quire().port}`,
          ...FROM_THE_PUBLIC_PAGE,
        })
      ).status,
    ).toBe(303);
  });

  it('still refuses a form from another site, whatever X-Forwarded-* an untrusted peer sends', async () => {
    const evil = { origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' };
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', { host: 'quire.test', ...evil })).status).toBe(
      403,
    );
    // Without Sec-Fetch-Site (an older browser): the Origin alone decides, and forwarded headers change nothing.
    const spoofed = { origin: 'https://evil.test', 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https' };
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', { host: 'quire.test', ...spoofed })).status).toBe(
      403,
    );
  });
});

describe('QUIRE_TRUST_PROXY=127.0.0.1 (no public URL)', () => {
  const quire = useQuire({ QUIRE_TRUST_PROXY: '127.0.0.1' });

  it('says at start whom it reads forwarded headers from', () => {
    expect(quire().server.output()).toContain('Proxy: X-Forwarded-* read from 127.0.0.1/32, not capped per client');
  });

  const forwardedHttps = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'quire.test' };

  it('takes the origin the trusted proxy reports, and makes the cookie Secure', async () => {
    const reply = await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.1', {
      host: `127.0.0.1:${quire().port}`,
      ...forwardedHttps,
      ...FROM_THE_PUBLIC_PAGE,
    });
    expect(reply).toMatchObject({ status: 303, location: '/admin' });
    expect(reply.setCookie.join('\n')).toMatch(/\bSecure\b/i);
  });

  it('ignores the same headers from a peer it does not trust: refused, and no Secure cookie on plain http', async () => {
    expect(
      (
        await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', {
          host: `127.0.0.1:${quire().port}`,
          ...forwardedHttps,
          ...FROM_THE_PUBLIC_PAGE,
        })
      ).status,
    ).toBe(403);
    const direct = await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.5', {
      host: `127.0.0.1:${quire().port}`,
      ...forwardedHttps,
    });
    expect(direct.status).toBe(303);
    expect(direct.setCookie.join('\n')).not.toMatch(/\bSecure\b/i);
  });

  it('throttles the client the trusted proxy names (rightmost untrusted hop), not the proxy', async () => {
    const via = (xff: string) => ({ 'x-forwarded-for': xff });
    for (let i = 0; i < 10; i++)
      expect((await postSignIn(quire().port, `wrong-${i}`, '127.0.0.1', via('203.0.113.7'))).status).toBe(401);
    expect((await postSignIn(quire().port, 'wrong-again', '127.0.0.1', via('203.0.113.7'))).status).toBe(429);
    // What the client wrote to the left of the address the proxy saw does not make it someone else…
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.1', via('198.51.100.1, 203.0.113.7'))).status).toBe(
      429,
    );
    // …and a hop that is itself the trusted proxy is skipped.
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.1', via('203.0.113.7, 127.0.0.1'))).status).toBe(429);
    // Another visitor through the same proxy signs in.
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.1', via('203.0.113.8'))).status).toBe(303);
  });

  it('throttles an untrusted peer by its own address, whatever X-Forwarded-For it sends', async () => {
    for (let i = 0; i < 10; i++)
      expect(
        (await postSignIn(quire().port, `wrong-${i}`, '127.0.0.6', { 'x-forwarded-for': `192.0.2.${i}` })).status,
      ).toBe(401);
    expect(
      (await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.6', { 'x-forwarded-for': '192.0.2.200' })).status,
    ).toBe(429);
    // The addresses it named were never counted: through the proxy, one of them is not throttled.
    expect((await postSignIn(quire().port, ADMIN_TOKEN, '127.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).status).toBe(
      303,
    );
  });
});
