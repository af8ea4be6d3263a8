// The specs of the commands about webhooks: a site's receiver and its conformance check,
// publishing what changed, the delivery workers, the delivery log and sending again.
import type { CommandSpec } from '../args.ts';
import { json, site } from './options.ts';

export const webhook: CommandSpec = {
  name: 'webhook',
  summary: "register, inspect, remove or try a site's webhook receiver",
  usage: [
    'webhook set <site> --url <https-url> (--secret <s> | --generate-secret) [--extra-events | --no-extra-events]',
    'webhook show [<site>] [--json]',
    'webhook remove <site>',
    'webhook test <site>',
  ],
  options: {
    url: { type: 'string', value: 'https-url', help: 'where the receiver listens (https, public host)' },
    secret: {
      type: 'string',
      value: 's',
      help: 'the shared secret (at least 24 characters); or set QUIRE_WEBHOOK_SECRET',
    },
    'generate-secret': { type: 'boolean', help: 'make a secret and print it once' },
    'extra-events': { type: 'boolean', help: 'also send unpublished/deleted events' },
    'no-extra-events': { type: 'boolean', help: 'stop sending unpublished/deleted events' },
    json,
  },
  positionals: { max: 2 },
  notes: [
    '`set` without a secret keeps the saved one (change only the URL).',
    '`test` builds content/ first, then sends the newest published article as an `updated` event.',
  ],
};

export const conformance: CommandSpec = {
  name: 'conformance',
  summary: "run the site's webhook receiver through what Quire will do to it, with a test article",
  usage: ['conformance <site> [--url <webhook-url>] [--json]'],
  options: {
    url: {
      type: 'string',
      value: 'webhook-url',
      help: "send to this receiver instead of the registered one (e.g. a staging deployment); the registered webhook's secret signs",
    },
    json: { type: 'boolean', help: 'print {"rules": [{"id", "ok", "warning", "code", "detail", "fix"}], …}' },
  },
  positionals: { max: 1 },
  notes: [
    'Sends a test article (slug quire-conformance-…) as published, the same delivery again, updated, a late',
    "older delivery, a forged request, mixed credentials and the raw-body pair, and reads the receiver's pages",
    'after each. Exit status: 0 when no rule failed (warnings allowed), 1 otherwise: fit for a CI step.',
    'The test article stays on the receiver unless the webhook opted in to extra events (a `deleted` is sent).',
  ],
};

export const publish: CommandSpec = {
  name: 'publish',
  summary: 'build, then send published/updated webhooks for what changed (npm run publish)',
  usage: ['publish [--site <id>] [--dry-run] [--baseline] [--no-deliver]'],
  options: {
    site,
    'no-deliver': {
      type: 'boolean',
      help: 'queue the deliveries and leave them to the workers (`quire worker`) or a server; send nothing here',
    },
    'dry-run': { type: 'boolean', help: 'print the events without writing dist/, sending or recording anything' },
    baseline: { type: 'boolean', help: 'record the current state as sent, without sending' },
  },
  positionals: { max: 0 },
  notes: [
    'Exit status: 0 all delivered, 1 something pending or failed (or the build failed), 3 another publish held the lock.',
  ],
};

export const worker: CommandSpec = {
  name: 'worker',
  summary: 'only deliver queued webhooks, until stopped; run any number, on any number of machines (npm run worker)',
  usage: ['worker [--concurrency <n>] [--per-host <n>] [--health-interval <seconds>]'],
  options: {
    concurrency: {
      type: 'integer',
      value: 'n',
      help: 'deliveries sent at once by this worker',
      min: 1,
      max: 1000,
      default: 16,
    },
    'per-host': {
      type: 'integer',
      value: 'n',
      help: 'requests in flight to one receiving host at most, across every worker of the state (default: no cap)',
      min: 1,
      max: 10_000,
    },
    'health-interval': {
      type: 'integer',
      value: 'seconds',
      help: 'how often it logs what it sent and what is pending',
      min: 1,
      max: 86_400,
      default: 60,
    },
  },
  positionals: { max: 0 },
  notes: [
    'With QUIRE_DATABASE_URL, workers on many machines share one PostgreSQL state: each delivery is sent by',
    "one of them at a time, one article's deliveries never overlap, and a worker that dies loses nothing",
    '(its leases run out and another takes its deliveries). SIGTERM: no new claims, what is in flight is',
    'finished, exit 0. `quire publish --no-deliver` queues for them; `quire deliveries --stats` shows the fleet.',
    'Logs one line per delivery attempt on stderr, as the server does (QUIRE_LOG_FORMAT=json: JSON lines).',
    "Beside sending, it checks the live page of each acknowledged delivery (site.yaml's verifyAfterDelivery): each",
    'check once across the fleet, one page of a site at a time, its requests under --per-host with the deliveries.',
  ],
};

export const deliveries: CommandSpec = {
  name: 'deliveries',
  summary: 'every delivery attempt: time, event, slug, status, duration, error, reply URL, live page check',
  usage: [
    'deliveries [--site <id>] [--json] [--limit <n>]',
    'deliveries --site <id> --problems [--json]',
    'deliveries --stats [--json]',
    'deliveries retry [<delivery-id> | --site <id>]',
  ],
  options: {
    site,
    json,
    stats: {
      type: 'boolean',
      help: "the whole outbox instead of the log: pending, in flight, senders, the last hour's attempts, page checks",
    },
    problems: {
      type: 'boolean',
      help: "the site's articles delivered but not live and right: their last page check found a problem or could not tell",
    },
    limit: {
      type: 'integer',
      value: 'n',
      help: 'at most this many attempts, newest first',
      min: 1,
      max: 100_000,
      default: 200,
    },
  },
  positionals: { max: 2 },
  notes: [
    '`retry` sends pending deliveries (waiting for their next attempt after a failure) now, in this process,',
    "and prints each result; without an id or --site, every site's. Delivered and failed ones are not",
    'sent again (that is `quire redeliver <id>`). Exit status: 0 all delivered, 1 something still pending or failed.',
    "Each acknowledged `published` or `updated` delivery's live page is checked by a running server or worker",
    "(`page`: live, render problem <code>, unverified <code>, pending, off; site.yaml's verifyAfterDelivery).",
    '`--problems` exits 1 when it lists any.',
  ],
};

export const redeliver: CommandSpec = {
  name: 'redeliver',
  summary: "send a delivery's payload again",
  usage: ['redeliver <delivery-id>'],
  options: {},
  positionals: { max: 1 },
  notes: ['Delivery ids are listed by `quire deliveries`.'],
};
