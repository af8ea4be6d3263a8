// The composition root: what a Quire process works with, opened in one place and closed in the
// reverse order: what a one-shot command runs on, and what each process module beside this one
// (server-process.ts, worker-process.ts, mcp-process.ts) assembles its process from; nothing below
// them opens a store, a client or a keyring itself. (The edge Worker has none of these parts.)
// Each part opens on first use, so a command pays only for what it touches, and a part that
// cannot open (a damaged state store) fails where it is asked for, naming its file.
import type { BuildSettings } from '../compile/build.ts';
import { readManifest } from '../export/export-files.ts';
import type { Manifest } from '../export/manifest.ts';
import { openLocalSnapshot, type LocalSnapshotReader } from '../snapshot/local-snapshot.ts';
import { refusedBuildMessage } from '../snapshot/build-public-url.ts';
import { runningServerUrl } from '../snapshot/served-build.ts';
import type { QuireConfig } from '../config/config.ts';
import { loadServerSecret } from '../config/server-secret.ts';
import { decidePublicUrl } from '../config/public-url.ts';
import { createKeyring, type Keyring } from '../keys/api-keys.ts';
import { discoverSites } from '../content/load-content.ts';
import { SITE_ID } from '../content/model.ts';
import type { KeyGenerationFile } from '../keys/key-generations.ts';
import { checkKeysAgainstBuild } from '../keys/key-record.ts';
import { openCheckedKeyGenerations, type StoreRecords } from '../keys/recorded-generations.ts';
import { createSafeClient, type SafeClient } from '../net/safe-client.ts';
import { VERIFIED_SITE } from '../net/target-policy.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { USER_AGENT } from '../delivery/signing.ts';
import { openStateStore, StateDatabaseError, StateStoreError, type StateStore } from '../store/state-store.ts';
import { locateContent, type ContentLocation } from '../follow/followed-content.ts';
import { shownPath } from '../text/shown-path.ts';

export interface Keys {
  keyring: Keyring;
  generations: KeyGenerationFile;
}

export interface App {
  readonly config: QuireConfig;
  /**
   * Where clients reach the Content API, without trailing slash (see src/config/public-url.ts). Decided on
   * first read; a process that serves calls `listening` before anything reads it.
   */
  readonly publicUrl: string;
  /**
   * The content tree this process reads (located once, see followed-content.ts): QUIRE_CONTENT_DIR,
   * content/ here, or the checkout of a server that follows a repository; the last is said in the log.
   */
  content(): ContentLocation;
  /** What a build needs: the content tree, the config's other folders and the public URL. */
  readonly buildSettings: BuildSettings;
  /** buildSettings with another content tree (a followed checkout's, for the server that follows it). */
  buildSettingsFor(contentDir: string): BuildSettings;
  /** The port this process's server was given; with PORT=0 only known once it listens. */
  listening(port: number): void;
  /**
   * The keyring and its generations, opened on the first call. Refused (naming the files) when
   * keys.json cannot be read, or is missing or behind the state store's copy for a site of
   * `contentDir` (this process's content tree unless given: a followed checkout) or of the current dist/, or is
   * behind what dist/ recorded: each would make rotated keys valid again. A state store that
   * cannot be read leaves keys.json unchecked against it (said through `log`) and refuses rotations.
   */
  keys(contentDir?: string): Promise<Keys>;
  /** The state store's key generations, or why the store cannot be read. */
  keyRecords(): Promise<StoreRecords>;
  /**
   * This project's site ids, whose keys keys.json and the state store must agree on: the site
   * folders of `contentDir` (this process's content tree unless given), with problems or not, and the sites of
   * the current dist/. Another project's may share a PostgreSQL state.
   */
  projectSites(contentDir?: string): Promise<Set<string>>;
  /** The reader of dist/ (not loaded yet: call `reload`). */
  dist(): LocalSnapshotReader;
  /** The state store (webhooks, outbox, publish state); StateStoreError when it cannot be read. */
  state(): StateStore;
  /** Delivery: the state store, the SSRF-safe webhook client and the clock. */
  delivery(): DeliveryDeps;
  /** The client that fetches a receiving site's pages for verification: http or https, public hosts only. */
  verifyClient(): SafeClient;
  /** Something the entry point opened itself (a server, a watcher, a timer): closed with the rest, in reverse order. */
  onClose(close: () => void | Promise<void>): void;
  /** Closes everything opened, the last opened first. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** Where the app's own notices go (the one warning that private targets are allowed). */
  log: (line: string) => void;
}

export function openApp(config: QuireConfig, { log }: AppOptions): App {
  const closers: (() => void | Promise<void>)[] = [];
  let listeningPort: number | null = null;
  let publicUrl: string | null = null;
  // The warning that private targets are allowed is said once per process, by its first client.
  let warned = false;
  const clientLog = (line: string) => {
    if (warned) return;
    warned = true;
    log(line);
  };

  /** A part opened on first use, its closer (if any) queued then. */
  function part<T>(open: () => T, close?: (value: T) => void | Promise<void>): () => T {
    let value: { v: T } | null = null;
    return () => {
      if (value) return value.v;
      value = { v: open() };
      const opened = value.v;
      if (close) closers.push(() => close(opened));
      return opened;
    };
  }

  // A process that serves takes up only builds made for its public URL; it says why it kept one.
  const dist = part(() =>
    openLocalSnapshot(
      config.distDir,
      config.stateDir,
      listeningPort === null
        ? null
        : { publicUrl: app.publicUrl, refused: (manifest) => log(refusedBuildMessage(manifest, app.publicUrl)) },
    ),
  );
  const content = part((): ContentLocation => {
    const located = locateContent(config);
    if (located.followedCheckout !== null)
      log(
        `Content: ${shownPath(located.dir)}, the checkout of the server that follows a repository (there is no content/ here, and QUIRE_CONTENT_DIR is not set)`,
      );
    return located;
  });
  const state = part(
    () => openStateStore(config.stateDir, loadServerSecret(config), config.databaseUrl),
    (store) => store.close(),
  );
  const keyRecords = async (): Promise<StoreRecords> => {
    try {
      const store = state();
      await store.ready();
      return { records: store.keyGenerations };
    } catch (e) {
      if (!(e instanceof StateStoreError || e instanceof StateDatabaseError)) throw e;
      return { unreadable: e };
    }
  };
  const sitesOf = async (contentDir: string, manifest: Manifest | null): Promise<Set<string>> => {
    const folders = (await discoverSites(contentDir, [], { standIns: true }))
      .map((s) => s.id)
      .filter((id) => SITE_ID.test(id));
    return new Set([...folders, ...Object.keys(manifest?.sites ?? {})]);
  };
  let keysOpened: Promise<Keys> | null = null;
  const openKeys = async (contentDir: string): Promise<Keys> => {
    const manifest = readManifest(config.distDir);
    const store = await keyRecords();
    if ('unreadable' in store)
      log(
        `The key generations in ${config.stateDir} are not checked against the state store, which cannot be read (${store.unreadable.message}); no key can be rotated until it reads again.`,
      );
    const generations = await openCheckedKeyGenerations(config.stateDir, store, await sitesOf(contentDir, manifest));
    checkKeysAgainstBuild(generations, manifest, config.distDir);
    return { keyring: createKeyring(loadServerSecret(config), generations), generations };
  };
  const webhookClient = part(
    () => createSafeClient({ allowPrivate: config.allowPrivateTargets, userAgent: USER_AGENT, log: clientLog }),
    (client) => client.close(),
  );
  const delivery = part(
    (): DeliveryDeps => ({
      store: state(),
      client: webhookClient(),
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      timeoutMs: config.webhookTimeoutMs,
      log,
    }),
  );
  /** The public URL: a process that serves nothing and builds beside a running server takes that server's, and says so. */
  const decideOnce = (): string => {
    const server =
      config.publicUrl === null && listeningPort === null ? runningServerUrl(config.stateDir, config.distDir) : null;
    if (server)
      log(
        `Public URL: ${server.publicUrl}, the one of the server running on this dist/ (pid ${server.pid}): what is built here is made for it (QUIRE_PUBLIC_URL sets another)`,
      );
    return decidePublicUrl(
      config.publicUrl,
      server?.publicUrl ?? null,
      `http://localhost:${listeningPort ?? config.port}`,
    );
  };
  const verifyClient = part(
    () => createSafeClient({ allowPrivate: config.allowPrivateTargets, policy: VERIFIED_SITE, log: clientLog }),
    (client) => client.close(),
  );

  const app: App = {
    config,
    get publicUrl() {
      publicUrl ??= decideOnce();
      return publicUrl;
    },
    content,
    get buildSettings() {
      return app.buildSettingsFor(content().dir);
    },
    buildSettingsFor(contentDir) {
      return {
        contentDir,
        distDir: config.distDir,
        stateDir: config.stateDir,
        publicUrl: app.publicUrl,
        testSwapPauseFile: config.testSwapPauseFile,
      };
    },
    listening(port) {
      // Deciding twice would give one process two public URLs, e.g. a build with the wrong port.
      if (publicUrl !== null) throw new Error('the public URL was decided before the server listened');
      listeningPort = port;
    },
    keys: (contentDir = content().dir) => (keysOpened ??= openKeys(contentDir)),
    keyRecords,
    projectSites: (contentDir = content().dir) => sitesOf(contentDir, readManifest(config.distDir)),
    dist,
    state,
    delivery,
    verifyClient,
    onClose(close) {
      closers.push(close);
    },
    async close() {
      let failure: unknown = null;
      for (let close = closers.pop(); close; close = closers.pop()) {
        try {
          await close();
        } catch (e) {
          failure ??= e;
        }
      }
      if (failure !== null) throw failure;
    },
  };
  return app;
}
