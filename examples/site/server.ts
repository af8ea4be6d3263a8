// Runs the example site:
//   QUIRE_API=http://localhost:8787/v1 QUIRE_KEY=pk_… RECEIVER_SECRET=… \
//   SITE_URL=https://www.example.com PORT=8790 npx tsx examples/site/server.ts
// QUIRE_PREVIEW_KEY=pv_… (optional) turns on the draft preview route, /api/preview.
// Serve it behind HTTPS (Quire delivers only to public https URLs) and register
// ${SITE_URL}/webhooks/quire as the site's webhook.
import { serve } from '@hono/node-server';
import { createExampleSite } from './site.ts';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`set ${name} (see the comment at the top of examples/site/server.ts)\n`);
    process.exit(2);
  }
  return value;
};

const port = Number(process.env.PORT ?? 8790);
const { app } = createExampleSite({
  secret: need('RECEIVER_SECRET'),
  apiBase: need('QUIRE_API'),
  apiKey: need('QUIRE_KEY'),
  ...(process.env.QUIRE_PREVIEW_KEY ? { previewKey: process.env.QUIRE_PREVIEW_KEY } : {}),
  publicUrl: process.env.SITE_URL ?? `http://localhost:${port}`,
});
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
  process.stderr.write(`example site on http://127.0.0.1:${info.port}\n`),
);
