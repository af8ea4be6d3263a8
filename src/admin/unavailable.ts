// /admin while the state store cannot be read: says so, without details (they are in the server's log).
import { Hono } from 'hono';

export function publishingUnavailable(): Hono {
  const app = new Hono();
  app.all('*', (c) =>
    c.text(
      'The Publishing app is unavailable: the state store cannot be read. The server log names the file and what to do.',
      503,
      { 'Cache-Control': 'no-store' },
    ),
  );
  return app;
}
