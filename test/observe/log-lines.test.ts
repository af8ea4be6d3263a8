import { describe, expect, it } from 'vitest';
import { createLogger, formatDelivery, formatRequest, maskQuery } from '../../src/observe/log-lines.ts';

describe('maskQuery', () => {
  it('masks key and every credential-looking parameter, by its decoded name', () => {
    expect(maskQuery('/v1/articles?key=pk_one.abc')).toBe('/v1/articles?key=***');
    expect(maskQuery('/v1/articles?limit=2&KEY=x&kind=news')).toBe('/v1/articles?limit=2&KEY=***&kind=news');
    expect(maskQuery('/v1/articles?%6Bey=x&%6B%65y=y&k%65y')).toBe('/v1/articles?%6Bey=***&%6B%65y=***&k%65y=***');
    expect(maskQuery('/x?token=a&access_token=b&secret=c&password=d&signature=e&api-key=f&session=g')).toBe(
      '/x?token=***&access_token=***&secret=***&password=***&signature=***&api-key=***&session=***',
    );
    expect(maskQuery('/x?%zz=1&key=2')).toBe('/x?%zz=1&key=***');
    expect(maskQuery('/v1/articles?updatedSince=2026-01-01&offset=5')).toBe(
      '/v1/articles?updatedSince=2026-01-01&offset=5',
    );
    expect(maskQuery('/v1/articles')).toBe('/v1/articles');
  });
});

describe('log lines', () => {
  const request = {
    method: 'GET',
    unsafePath: '/v1/articles/a\u001b[2J\u202e?key=SECRETKEY',
    status: 200,
    ms: 1.234,
    bytes: 512,
    site: 'blog',
  };

  it('text: one line, control characters escaped, the key masked', () => {
    const line = formatRequest('text', '2026-01-01T00:00:00.000Z', request);
    expect(line).toBe('2026-01-01T00:00:00.000Z GET /v1/articles/a\\u001b[2J\\u202e?key=*** 200 1.2ms 512B site=blog');
  });

  it('json: one object a line with the documented fields', () => {
    const line = formatRequest('json', 'T', request);
    expect(line).not.toMatch(/\n|SECRETKEY|\u001b|\u202e/);
    expect(JSON.parse(line)).toEqual({
      time: 'T',
      type: 'request',
      method: 'GET',
      path: '/v1/articles/a\\u001b[2J\\u202e?key=***',
      status: 200,
      ms: 1.2,
      bytes: 512,
      site: 'blog',
    });
    const delivery = {
      delivery: 'd1',
      site: 'blog',
      event: 'updated',
      slug: 'hello',
      attempt: 2,
      result: 'retry',
      status: 503,
      errorKind: 'http_503',
      ms: 40,
    };
    expect(JSON.parse(formatDelivery('json', 'T', delivery))).toEqual({
      time: 'T',
      type: 'delivery',
      delivery: 'd1',
      site: 'blog',
      event: 'updated',
      slug: 'hello',
      attempt: 2,
      result: 'retry',
      status: 503,
      error: 'http_503',
      ms: 40,
    });
    expect(formatDelivery('text', 'T', delivery)).toBe(
      'T delivery d1 site=blog updated hello attempt=2 retry 503 (http_503) 40ms',
    );
  });

  it('gathers lines into one write, written after a short wait or on flush', async () => {
    const writes: string[] = [];
    const logger = createLogger({ format: 'text', write: (chunk) => writes.push(chunk), now: () => 0 });
    logger.message('first');
    logger.message('second\u0007');
    expect(writes).toEqual([]);
    await expect.poll(() => writes).toEqual(['first\nsecond\\u0007\n']);
    logger.message('third');
    logger.flush();
    expect(writes).toEqual(['first\nsecond\\u0007\n', 'third\n']);
  });
});
