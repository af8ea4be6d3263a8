#!/usr/bin/env node
// `quire`: the command line. The only module that reads argv and the environment.
import { parseArgs } from 'node:util';
import { ConfigError, parseConfig, type QuireConfig } from '../config/config.ts';
import type { CliContext } from './context.ts';
import { runBuild } from './commands/build.ts';
import { runKeys } from './commands/keys.ts';
import { runServer } from './commands/serve.ts';

const HELP = `quire — Markdown in git → sanitized HTML, a keyed Content API and signed webhooks

Usage: npm run quire -- <command> [options]

Commands:
  start                     build content/ and serve the Content API (npm start)
  dev                       like start, and rebuild on every change to content/ (npm run dev)
  build                     compile content/ into dist/ (npm run build)
  keys [--site <id>] [--json]
                            print each site's API key
  keys rotate <site>        give one site a new key; the old key stops working, other sites keep theirs

Settings (environment): PORT, HOST, QUIRE_SECRET, QUIRE_STATE_DIR, QUIRE_CONTENT_DIR,
QUIRE_DIST_DIR, QUIRE_PUBLIC_URL. See README.md.`;

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
      return runBuild(ctx);
    case 'start':
      return runServer(ctx, { watch: false });
    case 'dev':
      return runServer(ctx, { watch: true });
    case 'keys': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { site: { type: 'string' }, json: { type: 'boolean', default: false } },
        allowPositionals: true,
      });
      return runKeys(ctx, { site: values.site ?? null, json: values.json ?? false, rotate: positionals[0] === 'rotate' ? (positionals[1] ?? '') : null });
    }
    default:
      err(`unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
