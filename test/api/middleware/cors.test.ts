// The CORS middleware on its own: preflights answered with what the API allows, other requests
// passed on untouched; the headers every answer carries made from the same options.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { cors, corsHeaders } from '../../../src/api/middleware/cors.ts';

const OPTIONS = {
  exposeHeaders: ['ETag', 'WWW-Authenticate'],
  allowMethods: ['GET', 'HEAD', 'OPTIONS'],
  allowHeaders: ['Authorization', 'If-None-Match'],
  maxAge: 600,
};

function appWith(options = OPTIONS) {
  const app = new Hono();
  app.use('*', cors(options));
  app.get('/things', (c) => c.text('things'));
  return app;
}

describe('cors', () => {
  it('answers a preflight 204 with the origin, methods, headers and how long to keep it', async () => {
    const res = await appWith().request('/things', {
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(Object.fromEntries(res.headers)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag, WWW-Authenticate',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'Authorization, If-None-Match',
      'access-control-max-age': '600',
      allow: 'GET, HEAD, OPTIONS',
    });
  });

  it('answers a preflight on a path no route takes', async () => {
    expect((await appWith().request('/elsewhere', { method: 'OPTIONS' })).status).toBe(204);
  });

  it('passes other requests on as their route answers them', async () => {
    const res = await appWith().request('/things', { headers: { origin: 'https://anywhere.example' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('things');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('has defaults: a read-only API, kept a day, no extra headers', async () => {
    const res = await appWith({} as typeof OPTIONS).request('/things', { method: 'OPTIONS' });
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
    expect(res.headers.has('access-control-allow-headers')).toBe(false);
    expect(res.headers.has('access-control-expose-headers')).toBe(false);
  });

  it('makes the headers every answer carries from the same options', () => {
    expect(corsHeaders(OPTIONS)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag, WWW-Authenticate',
    });
    expect(corsHeaders()).toEqual({ 'access-control-allow-origin': '*' });
    expect(Object.isFrozen(corsHeaders(OPTIONS))).toBe(true);
  });

  it('refuses options that would make a broken header, when it is made', () => {
    expect(() => cors({ allowHeaders: ['Authorization\r\nX-Injected: 1'] })).toThrow(/allowHeaders/);
    expect(() => cors({ allowMethods: ['GET POST'] })).toThrow(/allowMethods/);
    expect(() => corsHeaders({ exposeHeaders: [''] })).toThrow(/exposeHeaders/);
    expect(() => cors({ maxAge: -1 })).toThrow(RangeError);
    expect(() => cors({ maxAge: 1.5 })).toThrow(RangeError);
  });

  it('is a named function, for stack traces', () => {
    expect(cors().name).toBe('cors');
  });
});
