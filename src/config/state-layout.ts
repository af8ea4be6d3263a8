// Where everything stands in the state dir (QUIRE_STATE_DIR, default .quire/): the one place that
// spells its names, as src/export/layout.ts spells dist/'s. What each file holds, and who reads
// and writes it, is its owner's business; the names are here.
//
//   secret                   the server secret, when QUIRE_SECRET is unset (server-secret.ts)
//   keys.json                each site's API key generations (src/keys/key-generations.ts)
//   quire.db                 the SQLite state store (src/store/sqlite/database.ts)
//   served-build.json        what a running server serves, and its public URL (src/snapshot/served-build.ts)
//   cache/render.db          rendered bodies, drafts included (src/compile/render-cache.ts)
//   cache/build-state.v8     what the last build read and checked (src/compile/build-state.ts)
//   cache/render/            a file per entry, left by earlier versions (deleted when seen)
//   preview/<buildId>/       each build's drafts (src/export/preview-trees.ts)
//   follow/checkout/         the repository `start --follow` keeps (src/follow/checkout.ts)
//   follow/branches/         branch previews (`start --follow --previews`, src/follow/branch-store.ts):
//     followed.json          the followed branch's name, for commands beside the server
//     repo/                  the repository of every previewed branch (src/follow/branch-repository.ts)
//     cache/render.db        the render cache their builds share
//     <id>/branch.json       one branch's record: its name, when it was pushed, the commit built
//     <id>/checkout/         its working tree (a worktree of repo/)
//     <id>/dist/             its export, and its drafts' trees in <id>/state/preview/ (never public)
//
// Everything in it is its user's only (state-dir.ts). A backup copies quire.db, keys.json and
// secret (src/store/sqlite/state-backup.ts); the rest is made again.
import path from 'node:path';

export const SECRET_FILE = 'secret';
export const KEYS_FILE = 'keys.json';
export const STATE_DB_FILE = 'quire.db';
export const SERVED_BUILD_FILE = 'served-build.json';

/** The generated server secret. */
export const secretFileOf = (stateDir: string): string => path.join(stateDir, SECRET_FILE);
/** The key generations. */
export const keysFileOf = (stateDir: string): string => path.join(stateDir, KEYS_FILE);
/** The SQLite state store. */
export const stateDbFileOf = (stateDir: string): string => path.join(stateDir, STATE_DB_FILE);
/** The record of the build a running server serves. */
export const servedBuildFileOf = (stateDir: string): string => path.join(stateDir, SERVED_BUILD_FILE);

/** The build's caches: lost, they only cost a slower build. */
export const cacheDirOf = (stateDir: string): string => path.join(stateDir, 'cache');
/** The render cache's SQLite file. */
export const renderCacheFileOf = (stateDir: string): string => path.join(cacheDirOf(stateDir), 'render.db');
/** The render cache of earlier versions, a file per entry. */
export const legacyRenderEntriesOf = (stateDir: string): string => path.join(cacheDirOf(stateDir), 'render');
/** The last build's state (v8 serialization). */
export const buildStateFileOf = (stateDir: string): string => path.join(cacheDirOf(stateDir), 'build-state.v8');

/** The folder of every build's preview tree. */
export const previewRootOf = (stateDir: string): string => path.join(stateDir, 'preview');
/** The working tree of `start --follow` (a git repository of its own). */
export const followCheckoutDir = (stateDir: string): string => path.join(stateDir, 'follow', 'checkout');
/** Everything of branch previews: their repository, render cache and a folder per branch. */
export const branchPreviewsDir = (stateDir: string): string => path.join(stateDir, 'follow', 'branches');
