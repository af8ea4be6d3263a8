#!/usr/bin/env node
// `quire`: the command line. The only module that reads argv and the environment. Commands are
// loaded when used: a `publish` does not pay for compiling the web app or the MCP server.
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig, type QuireConfig } from '../config/config.ts';
import type { CliContext } from './context.ts';

const HELP = `quire — Markdown in git → sanitized HTML, a keyed Content API and signed webhooks

Usage: npm run quire -- <command> [options]

Commands:
  start                     build content/ and serve the Content API (npm start)
  dev                       like start, and rebuild on every change to content/ (npm run dev)
  build                     compile content/ into dist/ (npm run build)
  keys [--site <id>] [--json]
                            print each site's API key
  keys rotate <site>        give one site a new key; the old key stops working, other sites keep theirs
  webhook set <site> --url <https-url> (--secret <s> | --generate-secret) [--extra-events]
  webhook show [<site>] | webhook remove <site> | webhook test <site>
                            register, inspect, remove or try a site's webhook receiver
  publish [--site <id>] [--dry-run] [--baseline]
                            build, then send published/updated webhooks for what changed (npm run publish)
  deliveries [--site <id>] [--json] [--limit <n>]
                            every delivery attempt: time, event, slug, status, duration, error, reply URL
  redeliver <delivery-id>   send a delivery's payload again
  verify <site> [--url <base>] [--slug <s>]… [--json]
                            check the receiving site: sitemap, canonical, unmodified HTML, byline
  mcp                       serve the MCP tools over stdio (npm run mcp)

Settings (environment): PORT, HOST, QUIRE_SECRET, QUIRE_STATE_DIR, QUIRE_CONTENT_DIR,
QUIRE_DIST_DIR, QUIRE_PUBLIC_URL, QUIRE_WEBHOOK_SECRET, QUIRE_WEBHOOK_TIMEOUT_MS,
QUIRE_PUBLISH_RETRY_WINDOW_MS, QUIRE_ALLOW_PRIVATE_TARGETS (development only). See README.md.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const out = (line: string) => process.stdout.write(line + '\n');
  const err = (line: string) => process.stderr.write(line + '\n');
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    out(HELP);
    return command ? 0 : 2;
  }
  let config: QuireConfig;
  try {
    config = parseConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  const ctx: CliContext = { config, out, err };
  switch (command) {
    case 'build':
      return (await import('./commands/build.ts')).runBuild(ctx);
    case 'start':
      return (await import('./commands/serve.ts')).runServer(ctx, { watch: false });
    case 'dev':
      return (await import('./commands/serve.ts')).runServer(ctx, { watch: true });
    case 'keys': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { site: { type: 'string' }, json: { type: 'boolean', default: false } },
        allowPositionals: true,
      });
      return (await import('./commands/keys.ts')).runKeys(ctx, { site: values.site ?? null, json: values.json ?? false, rotate: positionals[0] === 'rotate' ? (positionals[1] ?? '') : null });
    }
    case 'webhook': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: {
          url: { type: 'string' },
          secret: { type: 'string' },
          'generate-secret': { type: 'boolean', default: false },
          'extra-events': { type: 'boolean' },
          'no-extra-events': { type: 'boolean' },
          json: { type: 'boolean', default: false },
        },
        allowPositionals: true,
      });
      return (await import('./commands/webhook.ts')).runWebhook(ctx, {
        action: positionals[0],
        site: positionals[1],
        url: values.url,
        secret: values.secret,
        generateSecret: values['generate-secret'] ?? false,
        extraEvents: values['extra-events'] ? true : values['no-extra-events'] ? false : undefined,
        json: values.json ?? false,
      });
    }
    case 'publish': {
      const { values } = parseArgs({
        args: rest,
        options: { site: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, baseline: { type: 'boolean', default: false } },
      });
      return (await import('./commands/publish.ts')).runPublish(ctx, { site: values.site ?? null, dryRun: values['dry-run'] ?? false, baseline: values.baseline ?? false });
    }
    case 'deliveries': {
      const { values } = parseArgs({
        args: rest,
        options: { site: { type: 'string' }, json: { type: 'boolean', default: false }, limit: { type: 'string', default: '200' } },
      });
      return (await import('./commands/deliveries.ts')).runDeliveries(ctx, { site: values.site ?? null, json: values.json ?? false, limit: Math.max(1, Number(values.limit) || 200) });
    }
    case 'redeliver':
      return (await import('./commands/deliveries.ts')).runRedeliver(ctx, rest[0]);
    case 'mcp':
      await import('../mcp/main.ts'); // serves MCP over stdio until stdin closes
      return -1;
    case 'verify': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { url: { type: 'string' }, slug: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } },
        allowPositionals: true,
      });
      return (await import('./commands/verify.ts')).runVerify(ctx, { site: positionals[0], url: values.url ?? null, slugs: values.slug ?? [], json: values.json ?? false });
    }
    default:
      err(`unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code === -1) return; // a server: it runs until stopped
    process.exitCode = code;
    // A command that has finished exits now rather than when the event loop drains: tearing
    // down the heap of a 10,000-article build took 30-50 ms more, and what may still be pending
    // is a helper thread's deletion of a replaced build, which the next build sweeps anyway.
    // Only once stdout and stderr hold nothing unwritten (pipes to a slow reader).
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
