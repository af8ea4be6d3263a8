// The body cap on its own: a declared length over the cap refused before the body is read, a
// chunked body refused once it passes the cap, the connection closed after either; GETs untouched.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { BODY_METHODS, bodyLimit } from '../../../src/api/middleware/body-limit.ts';
import { answerProblems } from '../../../src/api/error-response.ts';

function appWith(maxBytes: number) {
  const app = new Hono();
  app.on(BODY_METHODS, '*', bodyLimit({ maxBytes }));
  app.post('/form', async (c) => c.text(`read ${(await c.req.text()).length}`));
  app.get('/page', (c) => c.text('page'));
  app.onError(answerProblems());
  return app;
}

/** A body sent in chunks, without a Content-Length. */
const chunked = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < text.length; i += 10) controller.enqueue(new TextEncoder().encode(text.slice(i, i + 10)));
      controller.close();
    },
  });

describe('bodyLimit', () => {
  it('lets a body up to the cap through to its route', async () => {
    const res = await appWith(16).request('/form', { method: 'POST', body: 'x'.repeat(16) });
    expect(await res.text()).toBe('read 16');
  });

  it('refuses a declared length over the cap: 413 BODY_TOO_LARGE, connection closed', async () => {
    const res = await appWith(16).request('/form', { method: 'POST', body: 'x'.repeat(17) });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({
      error: { status: 413, code: 'BODY_TOO_LARGE', message: 'the request body is larger than 16 bytes' },
    });
  });

  it('refuses a chunked body once it passes the cap', async () => {
    const res = await appWith(16).request('/form', {
      method: 'POST',
      body: chunked('x'.repeat(40)),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('registers for the methods that carry bodies only', async () => {
    expect(BODY_METHODS).toEqual(['POST', 'PUT', 'PATCH', 'DELETE']);
    expect(await (await appWith(1).request('/page')).text()).toBe('page');
  });

  it('has a default cap, and refuses one that is not a whole number of bytes when it is made', () => {
    expect(() => bodyLimit()).not.toThrow();
    for (const maxBytes of [0, -1, 1.5, Number.NaN])
      expect(() => bodyLimit({ maxBytes }), String(maxBytes)).toThrow(RangeError);
  });

  it('is a named function, for stack traces', () => {
    expect(bodyLimit().name).toBe('bodyLimit');
  });
});
