// Every `quire` command as data: its options (types, bounds), its usage and help text, each
// command's spec in its group's module (specs/). main.ts parses argv against these and
// dispatches; `quire --help` and `quire <command> --help` print them. An option's default is in
// its spec, once: the parser hands it to the command and --help prints it.
import type { CommandSpec } from './args.ts';
import { build, check, init, preview, status, verify } from './specs/content.ts';
import { deploy, dev, edge, mcp, start } from './specs/serving.ts';
import { keys, state } from './specs/state.ts';
import { conformance, deliveries, publish, redeliver, webhook, worker } from './specs/webhooks.ts';

/** Every command, in the order `quire --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  init,
  start,
  dev,
  build,
  check,
  keys,
  webhook,
  publish,
  worker,
  status,
  deliveries,
  redeliver,
  state,
  verify,
  conformance,
  preview,
  edge,
  deploy,
  mcp,
];

export const commandNamed = (name: string): CommandSpec | undefined => COMMANDS.find((c) => c.name === name);
