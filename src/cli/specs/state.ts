// The specs of the commands about what the state dir and store keep: the keys, and the state's
// backup and its copy into PostgreSQL.
import type { CommandSpec } from '../args.ts';
import { json, site } from './options.ts';

export const keys: CommandSpec = {
  name: 'keys',
  summary:
    "print each site's API key and preview key, give one site a new key, or restore keys.json from the state store",
  usage: ['keys [--site <id>] [--json]', 'keys rotate <site> [--preview]', 'keys restore'],
  options: {
    site,
    json,
    preview: { type: 'boolean', help: 'with rotate: give the site a new preview key (its API key stays)' },
  },
  positionals: { max: 2 },
  notes: [
    'The table is site, API key (pk_…), preview key (pv_…): the preview key also sees drafts and',
    'scheduled articles, so keep it on the server side of a site, never in a page.',
    "`keys rotate` stops the old key at once; other sites, and the site's other key, keep theirs.",
    'Rotations are kept in the state store and in keys.json; a keys.json that is missing or behind the',
    "store is refused. `keys restore` writes the store's generations into keys.json.",
  ],
};

export const state: CommandSpec = {
  name: 'state',
  summary:
    'back up the state (webhooks, outbox, key generations, generated secret) while Quire runs; copy it into PostgreSQL',
  usage: ['state backup <dir> [--force]', 'state migrate-to-postgres'],
  options: { force: { type: 'boolean', help: 'replace an existing backup at <dir>' } },
  positionals: { max: 2 },
  notes: [
    '<dir> is made as a folder holding quire.db, keys.json and secret; docs/server.md (Backup and restore) says how to restore it.',
    'migrate-to-postgres copies quire.db (webhooks, deliveries with their attempts, publish records) into the empty PostgreSQL database of QUIRE_DATABASE_URL; stop every server and publish first.',
  ],
};
