// `npm run example:site [-- --site <id>]`: the reference receiving site on local HTTPS, with a
// throwaway CA made on every start, and exactly what to set in Quire to deliver to it.
//
// Quire delivers only over https and, unless QUIRE_ALLOW_PRIVATE_TARGETS=1, only to public
// addresses; a loopback receiver therefore needs both settings below, and its CA trusted through
// NODE_EXTRA_CA_CERTS. The site's own Content API key comes from this repository's Quire state
// (the same as `quire keys`), so the site can read authors and dates from the running server.
//
// Settings: EXAMPLE_SITE_PORT (default 8790; 0 = any free port), RECEIVER_SECRET (default: a new
// one), QUIRE_API (default: QUIRE_PUBLIC_URL or http://localhost:$PORT, + /v1), and Quire's own
// QUIRE_* settings (content and state folders).
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { openApp } from '../../src/app/app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { discoverSites } from '../../src/content/load-content.ts';
import { generateWebhookSecret } from '../../src/publish/webhook-settings.ts';
import { createExampleSite } from './site.ts';
import { createThrowawayCa, issueServerCertificate } from './throwaway-ca.ts';

const HOST = '127.0.0.1';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const USAGE = 'usage: npm run example:site [-- --site <id>]';
const HELP = `npm run example:site — the reference receiving site on local HTTPS, and what to set in Quire to deliver to it

${USAGE}

options:
  --site <id>   the site it receives for (default field-notes, or the first site of content/)
  -h, --help    print this help and do nothing else

settings: EXAMPLE_SITE_PORT (default 8790; 0: any free port), RECEIVER_SECRET (default: a new one),
QUIRE_API (default: QUIRE_PUBLIC_URL or http://localhost:$PORT, + /v1) and Quire's own settings.
`;

/** The site asked for with --site, or null; --help prints the usage and exits, like Quire's commands. */
function siteArgument(argv: string[]): string | null {
  let values: { site?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { site: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    fail(`example:site: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  return values.site ?? null;
}

async function main(): Promise<void> {
  // The command line first: --help or a mistyped option starts nothing.
  const asked = siteArgument(process.argv.slice(2));
  const config = parseConfig(process.env);
  const app = openApp(config, { log: (line) => process.stderr.write(`${line}\n`) });
  const sites = (await discoverSites(config.contentDir, [])).map((s) => s.id);
  const siteId = asked ?? (sites.includes('field-notes') ? 'field-notes' : sites[0]);
  if (!siteId || !sites.includes(siteId))
    fail(`no site "${siteId ?? ''}" in ${config.contentDir} (sites: ${sites.join(', ') || 'none'})`);
  const port = Number(process.env.EXAMPLE_SITE_PORT ?? 8790);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail('EXAMPLE_SITE_PORT must be a port number (0: any free port)');

  // The CA lives at a fixed place in the state folder, so NODE_EXTRA_CA_CERTS is set once; each
  // start replaces it (restart Quire's processes after restarting this one).
  const dir = path.join(config.stateDir, 'example-site');
  fs.mkdirSync(dir, { recursive: true });
  const ca = await createThrowawayCa('Quire example site CA (throwaway)', 30);
  const leaf = await issueServerCertificate(ca, {
    names: ['localhost'],
    ips: [HOST, '::1'],
    notAfter: new Date(Date.now() + 30 * 86_400_000),
  });
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, ca.certPem);

  const secret = process.env.RECEIVER_SECRET || generateWebhookSecret();
  const apiBase = process.env.QUIRE_API ?? `${app.publicUrl}/v1`;
  const { keyring } = await app.keys();
  const apiKey = keyring.keyFor(siteId);
  const previewKey = keyring.previewKeyFor(siteId);

  // The site's URL is only known once the port is: requests wait for the app.
  let handle: ((req: Request) => Response | Promise<Response>) | null = null;
  const server = serve({
    fetch: (req: Request) => handle!(req),
    port,
    hostname: HOST,
    createServer: https.createServer,
    serverOptions: { key: leaf.keyPem, cert: leaf.certPem },
  }) as https.Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  const siteUrl = `https://${HOST}:${(server.address() as AddressInfo).port}`;
  handle = createExampleSite({ secret, apiBase, apiKey, previewKey, publicUrl: siteUrl }).app.fetch;

  const webhookUrl = `${siteUrl}/webhooks/quire`;
  process.stdout.write(
    [
      `Example site for "${siteId}" on ${siteUrl} (HTTPS with a throwaway CA: ${caFile})`,
      `It reads authors and dates from ${apiBase}, so keep \`npm start\` running.`,
      '',
      `Webhook URL:    ${webhookUrl}`,
      `Webhook secret: ${secret}`,
      '',
      'In the shell where you run Quire:',
      `  export NODE_EXTRA_CA_CERTS=${caFile}`,
      '  export QUIRE_ALLOW_PRIVATE_TARGETS=1',
      `  npm run quire -- webhook set ${siteId} --url ${webhookUrl} --secret ${secret}`,
      '  npm start                     # (re)start after the exports: Node reads NODE_EXTRA_CA_CERTS at start',
      `  npm run quire -- webhook test ${siteId}`,
      '  npm run publish',
      `  npm run quire -- verify ${siteId} --url ${siteUrl}`,
      `  npm run quire -- conformance ${siteId}`,
      '',
      `Draft previews: add to content/${siteId}/site.yaml`,
      `  previewUrl: ${siteUrl}/api/preview?slug={slug}&token={token}`,
      `then \`npm run quire -- preview ${siteId} <slug>\` prints a link that opens the draft here.`,
      '',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
