// A flood of bodies made at request time from a client that refuses identity: distinct filtered
// pages of a 2,500-article site, each about 1 MB, 60 at a time with `Accept-Encoding: br,
// identity;q=0`, against the real server in a process of its own over real sockets. The
// server's memory stays bounded, every answer is br or 503 COMPRESSION_BUSY (never identity, which
// the client refused), and another client with another key is answered as promptly as during the
// same flood in identity: compressing adds nothing to what making and sending the pages costs.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { PNG_BYTES } from './fixture.ts';
import { startTestApiProcess, type TestApiProcess } from '../helpers/api-server-process.ts';
import { seeded } from '../helpers/seeded-random.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ARTICLES = 2500;
const FLOODERS = 60;
/** Rounds of the flood whose memory is measured: each of FLOODERS connections asks this many pages. */
const ROUNDS = 3;
/** Unbounded, this flood took the server from ~120 MB to 1.6 GB (a 2-core machine, Node 24). */
const MAX_PEAK_RSS = 250_000_000;
const REFUSING_IDENTITY = 'br, identity;q=0';

let p: TempProject;
let api: TestApiProcess;

beforeAll(async () => {
  const random = seeded(3);
  const WORDS =
    'river ridge trail map contour valley saddle summit water wind forecast granite birch moss lichen shelter bridge ford gully scree cairn compass bearing north south east west'.split(
      ' ',
    );
  // Words and numbers in no pattern, so the pages compress about as real text does.
  const words = (n: number) =>
    Array.from({ length: n }, () =>
      random() < 0.15 ? Math.floor(random() * 1e6).toString(36) : WORDS[Math.floor(random() * WORDS.length)],
    ).join(' ');
  p = createTempProject();
  writeSite(p, 'big');
  writeSite(p, 'other');
  for (let i = 0; i < ARTICLES; i++) {
    const date = new Date(Date.UTC(2020, 0, 1) + i * 7 * 3_600_000).toISOString();
    p.write(
      `big/articles/a-${i}.md`,
      article(
        { title: words(6), status: 'published', publishedAt: date, updatedAt: date },
        `${words(40)}.\n\n${words(40)}.\n`,
      ),
    );
  }
  p.write('other/images/cover.png', PNG_BYTES);
  for (let i = 0; i < 5; i++) {
    p.write(
      `other/articles/o-${i}.md`,
      article(
        {
          title: `Other ${i}`,
          status: 'published',
          publishedAt: '2026-01-01T00:00:00Z',
          image: 'cover.png',
          imageAlt: 'A cover',
        },
        Array.from({ length: 20 }, () => `${words(40)}.\n`).join('\n'),
      ),
    );
  }
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  api = await startTestApiProcess(p);
}, 120_000);

afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  ms: number;
  path: string;
}

/** A GET with exactly these headers (fetch would add and decode Accept-Encoding itself). */
function get(
  pathname: string,
  key: string,
  acceptEncoding: string,
  options: { agent?: http.Agent; localAddress?: string } = {},
): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${api.url}${pathname}`,
      {
        headers: { authorization: `Bearer ${key}`, 'accept-encoding': acceptEncoding },
        agent: options.agent ?? false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            raw: Buffer.concat(chunks),
            ms: performance.now() - started,
            path: pathname,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Flooded {
  offset: number;
  reply: Reply;
}

/**
 * FLOODERS connections with the key of site "big", each asking for one distinct ~1 MB filtered
 * page after another (none is answered from the cache of variants), `rounds` each and for as long
 * as `goOn()` says.
 */
async function flood(acceptEncoding: string, rounds: number, goOn: () => boolean = () => false): Promise<Flooded[]> {
  const key = api.keyring.keyFor('big');
  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOODERS });
  try {
    const workers = Array.from({ length: FLOODERS }, async (_, worker) => {
      const replies: Flooded[] = [];
      for (let round = 0; round < rounds || goOn(); round++) {
        const offset = 1 + ((round * FLOODERS + worker) % (ARTICLES - 100));
        replies.push({ offset, reply: await get(`/v1/articles?offset=${offset}`, key, acceptEncoding, { agent }) });
      }
      return replies;
    });
    return (await Promise.all(workers)).flat();
  } finally {
    agent.destroy();
  }
}

describe('request-time compression under a flood that refuses identity', () => {
  it('keeps the server under 250 MB and answers br or 503 COMPRESSION_BUSY with Retry-After, never identity', async () => {
    const flooded = await flood(REFUSING_IDENTITY, ROUNDS);
    expect(api.peakRssBytes()).toBeLessThan(MAX_PEAK_RSS);

    let compressed = 0;
    for (const { offset, reply } of flooded) {
      if (reply.status === 200) {
        expect(reply.headers['content-encoding'], `offset=${offset}`).toBe('br');
        compressed++;
      } else {
        expect(reply.status, `offset=${offset}`).toBe(503);
        expect(JSON.parse(reply.raw.toString()).error.code).toBe('COMPRESSION_BUSY');
        expect(reply.headers['retry-after']).toBe('1');
        expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
      }
    }
    expect(compressed).toBeGreaterThan(0);
    const sample = flooded.find((f) => f.reply.status === 200)!;
    const identity = await get(`/v1/articles?offset=${sample.offset}`, api.keyring.keyFor('big'), 'identity');
    expect(identity.raw.length).toBeGreaterThan(900_000);
    expect(zlib.brotliDecompressSync(sample.reply.raw).equals(identity.raw)).toBe(true);
  }, 120_000);

  it('answers another client with another key as promptly as during a flood of the same pages in identity', async () => {
    // Its own address, so the flood's connections do not count against it; it asks as a browser
    // does: a stored article, a small filtered page made now, and an image (read from disk on
    // libuv's thread pool, where compression runs too).
    const other = api.keyring.keyFor('other');
    const otherClient = { localAddress: '127.0.0.2' };
    const { imageUrl } = JSON.parse((await get('/v1/articles/o-1', other, 'identity', otherClient)).raw.toString()) as {
      imageUrl: string;
    };
    const otherPaths = ['/v1/articles/o-1', '/v1/articles?limit=20&offset=3', new URL(imageUrl).pathname];
    const askOther = async (rounds: number): Promise<Reply[]> => {
      const replies: Reply[] = [];
      for (let i = 0; i < rounds; i++)
        for (const path of otherPaths) replies.push(await get(path, other, 'gzip, deflate, br', otherClient));
      return replies;
    };
    const during = async (acceptEncoding: string): Promise<Reply[]> => {
      let measuring = true;
      const flooding = flood(acceptEncoding, 1, () => measuring);
      const replies = await askOther(5).finally(() => (measuring = false));
      await flooding;
      return replies;
    };
    await askOther(3); // warm-up
    const quiet = await askOther(5);
    // Making and sending 60 pages of ~1 MB at a time slows every answer on a 2-core machine
    // whatever their coding; compressing them must not add to that. Unbounded, it did: the image
    // waited seconds behind the flood's compression on the thread pool.
    const identityFlood = await during('identity');
    const refusingFlood = await during(REFUSING_IDENTITY);

    for (const reply of [...quiet, ...identityFlood, ...refusingFlood]) expect(reply.status, reply.path).toBe(200);
    for (const path of otherPaths) {
      const ms = (replies: Reply[]) => replies.filter((r) => r.path === path).map((r) => Math.round(r.ms));
      expect(
        median(ms(refusingFlood)),
        `${path}: ms without a flood ${ms(quiet)}, in identity ${ms(identityFlood)}, refusing identity ${ms(refusingFlood)}`,
      ).toBeLessThan(2 * median(ms(identityFlood)) + 100);
    }
  }, 120_000);
});
