// The receiving site of the page checks bench, in its own process (as a real site is): the
// reference site (examples/site/) on HTTPS, with `articles` stored as its receiver stores them.
// Started with fork() under tsx; gets {key, cert, articles} over IPC, replies {url}; answers
// 'count' with the requests it has answered, by kind.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createExampleSite, type StoredArticle } from '../../examples/site/site.ts';

process.once('message', (m: { key: string; cert: string; articles: StoredArticle[] }) => {
  let site: ReturnType<typeof createExampleSite> | null = null;
  const counts = { robots: 0, sitemap: 0, page: 0, other: 0 };
  const server = serve({
    fetch: (req: Request) => {
      const path = new URL(req.url).pathname;
      if (path === '/robots.txt') counts.robots++;
      else if (path === '/sitemap.xml') counts.sitemap++;
      else if (path.startsWith('/blog/')) counts.page++;
      else counts.other++;
      return site!.app.fetch(req);
    },
    port: 0,
    hostname: '127.0.0.1',
    createServer: https.createServer,
    serverOptions: { key: m.key, cert: m.cert, keepAliveTimeout: 30_000 },
  }) as https.Server;
  server.once('listening', () => {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    site = createExampleSite({ secret: 'unused', apiBase: 'https://api.invalid/v1', apiKey: 'unused', publicUrl: url });
    for (const a of m.articles) site.articles.set(a.id, a);
    process.send!({ url });
  });
  process.on('message', (msg) => {
    if (msg === 'count') process.send!({ ...counts });
    else if (msg === 'exit') server.close(() => process.exit(0));
  });
});
