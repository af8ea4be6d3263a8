#!/usr/bin/env node
// `quire`: the command line. The only module that reads argv and the environment. Commands are
// declared in commands.ts and parsed by args.ts before anything runs (so `--help` only prints);
// they are loaded when used: a `publish` does not pay for compiling the web app or the MCP server.
import { openApp } from '../app/app.ts';
import { PACKAGE_VERSION } from '../app/package-version.ts';
import { ConfigError, parseConfig, SETTING_LINES, type QuireConfig } from '../config/config.ts';
import { closestName } from '../text/closest-name.ts';
import { helpText, parseArgs, type ArgValues, type CommandSpec } from './args.ts';
import { commandNamed, COMMANDS } from './commands.ts';
import { refuseCommandLine, unknownAction, type CliContext } from './context.ts';
import { errorText, withCode } from '../problems/problem.ts';
import { printableText } from '../text/printable.ts';

function topLevelHelp(): string {
  const commands = COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`);
  const width = Math.max(...SETTING_LINES.map((s) => s.name.length));
  return [
    'quire — Markdown in git → sanitized HTML, a keyed Content API and signed webhooks',
    '',
    'usage: quire <command> [options]      (or: npm run quire -- <command> [options])',
    "       quire <command> --help         that command's usage and options",
    '       quire --version',
    '',
    'commands:',
    ...commands,
    '',
    'settings (environment; a bad value stops Quire before it does anything):',
    ...SETTING_LINES.map((s) => `  ${s.name.padEnd(width)}  ${s.about}`),
    `  ${'NODE_EXTRA_CA_CERTS'.padEnd(width)}  Node's own: extra CA certificates to trust (e.g. a local test CA)`,
    '',
    'See README.md.',
  ].join('\n');
}

function unknownCommand(command: string, err: (line: string) => void): 2 {
  const near = closestName(
    command,
    COMMANDS.map((c) => c.name),
  );
  return refuseCommandLine(
    err,
    `unknown command "${command}"${near ? ` (did you mean "${near}"?)` : ''}; \`quire --help\` lists the commands`,
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Every line goes through printableText: whatever a command prints, content or a receiver's
  // reply cannot put a control sequence on the terminal.
  const out = (line: string) => process.stdout.write(`${printableText(line)}\n`);
  const err = (line: string) => process.stderr.write(`${printableText(line)}\n`);
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    const spec = command === 'help' && rest[0] ? commandNamed(rest[0]) : undefined;
    if (command === 'help' && rest[0] && !spec) return unknownCommand(rest[0], err);
    (command ? out : err)(spec ? helpText(spec) : topLevelHelp());
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    out(PACKAGE_VERSION);
    return 0;
  }
  const spec = commandNamed(command);
  if (!spec) return unknownCommand(command, err);
  const parsed = parseArgs(spec, rest);
  if (parsed.kind === 'help') {
    out(helpText(spec));
    return 0;
  }
  if (parsed.kind === 'error') return refuseCommandLine(err, parsed.message);
  const { values, positionals } = parsed;
  let config: QuireConfig;
  try {
    config = parseConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      err(withCode(e.message, e.code));
      return 2;
    }
    throw e;
  }
  // The one App of this process: what the command opens through it is closed when it returns.
  const app = openApp(config, { log: err });
  try {
    return await run(spec, { app, config, out, err }, values, positionals);
  } finally {
    await app.close();
  }
}

/** Commands that read or write the state: a PostgreSQL state that cannot be used is told before they do anything. */
const STATE_COMMANDS = new Set(['webhook', 'publish', 'deliveries', 'redeliver', 'worker', 'conformance']);

async function run(
  spec: CommandSpec,
  ctx: CliContext,
  values: ArgValues,
  positionals: readonly string[],
): Promise<number> {
  const { err } = ctx;
  if (ctx.config.databaseUrl !== null && STATE_COMMANDS.has(spec.name)) await ctx.app.state().ready();
  switch (spec.name) {
    case 'init':
      return (await import('./commands/init.ts')).runInit(ctx, {
        dir: positionals[0] ?? '.',
        site: values.string('site') ?? null,
        now: new Date(),
      });
    case 'build':
      return (await import('./commands/build.ts')).runBuild(ctx);
    case 'check':
      return (await import('./commands/check.ts')).runCheck(ctx, {
        format: values.stringOrDefault('format'),
        output: values.string('output') ?? null,
      });
    case 'start': {
      const url = values.string('follow');
      if (
        url === undefined &&
        (values.string('branch') !== undefined ||
          values.integer('interval') !== undefined ||
          values.list('previews').length)
      ) {
        return refuseCommandLine(
          err,
          'quire start: --branch, --interval and --previews go with --follow <git-url-or-path>',
        );
      }
      return (await import('./commands/serve.ts')).runServer(ctx, {
        watch: false,
        follow:
          url === undefined
            ? undefined
            : {
                url,
                branch: values.string('branch'),
                intervalSeconds: values.integerOrDefault('interval'),
                previews: values.list('previews'),
              },
      });
    }
    case 'dev':
      return (await import('./commands/serve.ts')).runServer(ctx, { watch: true });
    case 'keys':
      if (positionals.length && positionals[0] !== 'rotate' && positionals[0] !== 'restore')
        return refuseCommandLine(
          err,
          `quire keys: ${unknownAction(positionals[0]!, ['rotate', 'restore'])}\n${helpText(spec)}`,
        );
      if (positionals[0] === 'restore') {
        if (
          positionals.length > 1 ||
          values.string('site') !== undefined ||
          values.flag('json') ||
          values.flag('preview')
        ) {
          return refuseCommandLine(err, `quire keys restore: takes nothing else\n${helpText(spec)}`);
        }
        return (await import('./commands/keys.ts')).runKeysRestore(ctx);
      }
      return (await import('./commands/keys.ts')).runKeys(ctx, {
        site: values.string('site') ?? null,
        json: values.flag('json'),
        rotate: positionals[0] === 'rotate' ? (positionals[1] ?? '') : null,
        preview: values.flag('preview'),
      });
    case 'status':
      return (await import('./commands/status.ts')).runStatus(ctx, {
        site: values.string('site') ?? null,
        json: values.flag('json'),
        now: Date.now(),
      });
    case 'preview': {
      const ref = values.string('ref') ?? null;
      if (values.flag('changed')) {
        if (positionals.length || values.flag('json') || ref === null)
          return refuseCommandLine(
            err,
            `quire preview --changed: takes --ref <branch> (and --base, --format, --ttl), no site or slug; --format json for JSON\n${helpText(spec)}`,
          );
        return (await import('./commands/preview-changed.ts')).runPreviewChanged(ctx, {
          ref,
          base: values.string('base') ?? null,
          format: values.stringOrDefault('format'),
          ttl: values.stringOrDefault('ttl'),
          now: Date.now(),
        });
      }
      if (values.string('base') !== undefined || values.string('format') !== undefined)
        return refuseCommandLine(err, `quire preview: --base and --format go with --changed\n${helpText(spec)}`);
      return (await import('./commands/preview.ts')).runPreview(ctx, {
        site: positionals[0] ?? null,
        slug: positionals[1] ?? null,
        ttl: values.stringOrDefault('ttl'),
        json: values.flag('json'),
        ref,
        now: Date.now(),
      });
    }
    case 'webhook':
      return (await import('./commands/webhook.ts')).runWebhook(ctx, {
        action: positionals[0],
        site: positionals[1],
        url: values.string('url'),
        secret: values.string('secret'),
        generateSecret: values.flag('generate-secret'),
        extraEvents: values.flag('extra-events') ? true : values.flag('no-extra-events') ? false : undefined,
        json: values.flag('json'),
      });
    case 'publish':
      return (await import('./commands/publish.ts')).runPublish(ctx, {
        site: values.string('site') ?? null,
        dryRun: values.flag('dry-run'),
        baseline: values.flag('baseline'),
        deliver: !values.flag('no-deliver'),
      });
    case 'worker':
      return (await import('./commands/worker.ts')).runWorker(ctx, {
        concurrency: values.integerOrDefault('concurrency'),
        perHost: values.integer('per-host') ?? null,
        healthIntervalSeconds: values.integerOrDefault('health-interval'),
      });
    case 'deliveries':
      if (positionals.length && positionals[0] !== 'retry')
        return refuseCommandLine(
          err,
          `quire deliveries: ${unknownAction(positionals[0]!, ['retry'])}\n${helpText(spec)}`,
        );
      if (positionals[0] === 'retry') {
        if (
          values.flag('json') ||
          values.flag('stats') ||
          values.flag('problems') ||
          values.integer('limit') !== undefined ||
          (positionals[1] !== undefined && values.string('site') !== undefined)
        ) {
          return refuseCommandLine(
            err,
            `quire deliveries retry: takes a delivery id or --site <id> (or neither: every site), nothing else\n${helpText(spec)}`,
          );
        }
        return (await import('./commands/retry.ts')).runRetry(
          ctx,
          positionals[1] !== undefined ? { deliveryId: positionals[1] } : { siteId: values.string('site') ?? null },
        );
      }
      if (values.flag('problems')) {
        const site = values.string('site');
        if (site === undefined || values.flag('stats') || values.integer('limit') !== undefined)
          return refuseCommandLine(
            err,
            `quire deliveries --problems: takes --site <id> and --json, nothing else\n${helpText(spec)}`,
          );
        return (await import('./commands/deliveries.ts')).runPageProblems(ctx, { site, json: values.flag('json') });
      }
      if (values.flag('stats')) {
        if (values.string('site') !== undefined || values.integer('limit') !== undefined) {
          return refuseCommandLine(
            err,
            `quire deliveries --stats: the whole fleet's outbox; takes only --json\n${helpText(spec)}`,
          );
        }
        return (await import('./commands/deliveries.ts')).runDeliveryStats(ctx, {
          json: values.flag('json'),
          now: Date.now(),
        });
      }
      return (await import('./commands/deliveries.ts')).runDeliveries(ctx, {
        site: values.string('site') ?? null,
        json: values.flag('json'),
        limit: values.integerOrDefault('limit'),
      });
    case 'conformance':
      return (await import('./commands/conformance.ts')).runConformanceCheck(ctx, {
        site: positionals[0],
        url: values.string('url') ?? null,
        json: values.flag('json'),
      });
    case 'redeliver':
      return (await import('./commands/deliveries.ts')).runRedeliver(ctx, positionals[0]);
    case 'state':
      if (positionals[0] === 'migrate-to-postgres' && positionals.length === 1)
        return (await import('./commands/state.ts')).runMigrateToPostgres(ctx);
      if (positionals[0] !== 'backup' || !positionals[1]) {
        const why =
          positionals[0] === 'backup'
            ? 'backup needs the folder to write'
            : positionals[0] === 'migrate-to-postgres'
              ? 'migrate-to-postgres takes no argument'
              : positionals[0] === undefined
                ? 'needs an action, backup or migrate-to-postgres'
                : unknownAction(positionals[0], ['backup', 'migrate-to-postgres']);
        return refuseCommandLine(err, `quire state: ${why}\n${helpText(spec)}`);
      }
      return (await import('./commands/state.ts')).runStateBackup(ctx, {
        target: positionals[1],
        force: values.flag('force'),
      });
    case 'edge':
      if (values.flag('init')) {
        if (values.integer('port') !== undefined)
          return refuseCommandLine(
            err,
            `quire edge --init: writes wrangler.toml and runs nothing; it takes no --port\n${helpText(spec)}`,
          );
        return (await import('./commands/edge.ts')).runEdgeInit(ctx, process.cwd());
      }
      return (await import('./commands/edge.ts')).runEdge(ctx, { port: values.integerOrDefault('port') });
    case 'deploy':
      return (await import('./commands/deploy.ts')).runDeploy(ctx, {
        dryRun: values.flag('dry-run'),
        keepHours: values.integerOrDefault('keep-hours'),
        concurrency: values.integerOrDefault('concurrency'),
      });
    case 'mcp':
      return (await import('./commands/mcp.ts')).runMcp(ctx); // serves MCP over stdio until stdin closes
    case 'verify':
      return (await import('./commands/verify.ts')).runVerify(ctx, {
        site: positionals[0],
        url: values.string('url') ?? null,
        slugs: values.list('slug'),
        json: values.flag('json'),
      });
    default:
      throw new Error(`command "${spec.name}" is declared but not dispatched`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A command that has finished exits now rather than when the event loop drains: tearing down
    // the heap of a large build takes longer (docs/benchmarks-log.md, "figures first recorded in
    // code comments"), and what may still be pending is a helper thread's deletion of a replaced
    // build, which the next build sweeps anyway. Only once stdout and stderr hold nothing unwritten
    // (pipes to a slow reader).
    if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
  },
  (e: unknown) => {
    // A problem a command did not catch still says its code (what to do is the catalogue's fix).
    process.stderr.write(`${printableText(errorText(e))}\n`);
    process.exitCode = 1;
  },
);
