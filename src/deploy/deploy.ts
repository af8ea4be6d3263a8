// `quire deploy`: the current build to object storage. Uploads only objects the store lacks,
// then the build's document, then switches the pointer (current.json) last, so a reader sees the
// old build or the new one, never a mix; a failure anywhere before the switch leaves the old
// build served, and a rerun skips what is already there. Then it prunes builds retired longer
// than the grace period, deleting only objects no kept build references.
import {
  buildKey,
  EXPORT_FORMAT,
  exportJson,
  objectKey,
  OBJECTS_PREFIX,
  parseBuild,
  parsePointer,
  parseSite,
  POINTER_KEY,
  type ExportBuild,
  type ExportPointer,
} from '../export/object-export.ts';
import type { Manifest } from '../export/manifest.ts';
import type { ExportPlan } from './export-plan.ts';
import type { ObjectStore } from './object-store.ts';

/** Objects are named by their content: cache them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The pointer changes with every deploy. */
const NO_CACHE = 'no-cache';
/** Beyond this many objects to look for, one listing of objects/ costs fewer requests than a HEAD each. */
const LIST_ABOVE = 256;

export interface DeployOptions {
  store: ObjectStore;
  plan: ExportPlan;
  /** The key generations the edge checks keys against (site, and `<site>.preview`, above 1). */
  keyGenerations: Record<string, number>;
  /** Only say what would be done. */
  dryRun?: boolean;
  /** Uploads at once (default 16). */
  concurrency?: number;
  /** How long a build stays in the store after it stopped being current (default 24 h). */
  keepMs?: number;
  now?: () => number;
  /** Told after each upload. */
  onProgress?: (done: number, total: number, bytes: number) => void;
}

export interface DeploySummary {
  buildId: string;
  /** The build served before (null: the store had none). */
  previousBuildId: string | null;
  uploaded: number;
  uploadedBytes: number;
  skipped: number;
  /** Objects and build documents deleted by the prune. */
  removed: number;
  /** Whether the pointer was (or, dry, would be) written. */
  switched: boolean;
  prunedBuilds: string[];
  dryRun: boolean;
}

export const DEFAULT_KEEP_MS = 24 * 3600_000;

export async function deploy(options: DeployOptions): Promise<DeploySummary> {
  const { store, plan, dryRun = false, concurrency = 16, keepMs = DEFAULT_KEEP_MS } = options;
  const now = options.now ?? Date.now;
  const pointerBytes = await store.get(POINTER_KEY);
  const pointer = pointerBytes ? parsePointer(pointerBytes) : null;

  // What the store holds for sure: what the build it serves references (never pruned while served).
  const present = pointer ? await referencedBy(store, pointer.buildId, plan) : new Set<string>();
  const wanted = [...plan.objects.keys()].filter((key) => !present.has(key));
  const there = await whichExist(store, wanted, plan);
  const missing = wanted.filter((key) => !there.has(key));
  const buildThere =
    pointer?.buildId === plan.buildId || (await store.sizeOf(plan.build.key)) === plan.build.bytes.length;

  const keyGenerations = atLeast(pointer?.keyGenerations ?? {}, options.keyGenerations);
  const switched = !pointer || pointer.buildId !== plan.buildId || !sameRecord(pointer.keyGenerations, keyGenerations);
  const summary: DeploySummary = {
    buildId: plan.buildId,
    previousBuildId: pointer?.buildId ?? null,
    uploaded: missing.length + (buildThere ? 0 : 1),
    uploadedBytes:
      missing.reduce((n, key) => n + plan.objects.get(key)!.size(), 0) + (buildThere ? 0 : plan.build.bytes.length),
    skipped: plan.objects.size - missing.length,
    removed: 0,
    switched,
    prunedBuilds: [],
    dryRun,
  };
  if (dryRun) return summary;

  let done = 0;
  let bytes = 0;
  await eachLimited(missing, concurrency, async (key) => {
    const object = plan.objects.get(key)!;
    const body = object.bytes();
    await store.put(key, body, { contentType: object.contentType, cacheControl: IMMUTABLE });
    bytes += body.length;
    options.onProgress?.(++done, missing.length, bytes);
  });
  if (!buildThere)
    await store.put(plan.build.key, plan.build.bytes, { contentType: 'application/json', cacheControl: IMMUTABLE });

  const at = new Date(now()).toISOString();
  const retired = { ...(pointer?.retired ?? {}) };
  if (pointer && pointer.buildId !== plan.buildId) retired[pointer.buildId] = at;
  delete retired[plan.buildId];
  let next: ExportPointer = {
    format: EXPORT_FORMAT,
    buildId: plan.buildId,
    deployedAt: switched ? at : pointer!.deployedAt,
    keyGenerations,
    retired,
  };
  if (switched) await writePointer(store, next);

  // The prune: builds retired longer ago than the grace period, and what only they reference.
  const expired = Object.entries(retired)
    .filter(([, when]) => now() - Date.parse(when) >= keepMs)
    .map(([id]) => id);
  if (expired.length) {
    const kept = [plan.buildId, ...Object.keys(retired).filter((id) => !expired.includes(id))];
    const drop = await onlyReferencedBy(store, expired, kept);
    // Objects first, the build's document last: a prune cut short is found again and finished.
    const keys = [...drop];
    for (let i = 0; i < keys.length; i += 1000) await store.delete(keys.slice(i, i + 1000));
    await store.delete(expired.map(buildKey));
    summary.removed = drop.size + expired.length;
    summary.prunedBuilds = expired;
    for (const id of expired) delete retired[id];
    next = { ...next, retired };
    await writePointer(store, next);
  }
  return summary;
}

const writePointer = (store: ObjectStore, pointer: ExportPointer) =>
  store.put(POINTER_KEY, exportJson(pointer), { contentType: 'application/json', cacheControl: NO_CACHE });

/** A build's document; null when it is gone (a prune that got that far). */
async function readBuild(store: ObjectStore, buildId: string): Promise<ExportBuild | null> {
  const bytes = await store.get(buildKey(buildId));
  return bytes ? parseBuild(bytes, buildKey(buildId)) : null;
}

/** The keys of the objects a site's part names (its files), and the part's own. */
async function partObjects(store: ObjectStore, siteId: string, partHash: string): Promise<string[]> {
  const key = objectKey(siteId, partHash);
  const bytes = await store.get(key);
  if (!bytes) return [key];
  return [key, ...Object.values(parseSite(bytes, key).files).map((hash) => objectKey(siteId, hash))];
}

/**
 * Every object the build `buildId` references (its files and site parts); empty when its document
 * is gone. Sites whose part is the same in `known` (the build being deployed) are not read: their
 * objects are those the plan has for them.
 */
async function referencedBy(store: ObjectStore, buildId: string, known: ExportPlan): Promise<Set<string>> {
  const keys = new Set<string>();
  const build = await readBuild(store, buildId);
  for (const [id, partHash] of Object.entries(build?.sites ?? {})) {
    const objects =
      known.sites[id] === partHash
        ? [objectKey(id, partHash), ...(known.siteObjects.get(id) ?? [])]
        : await partObjects(store, id, partHash);
    for (const key of objects) keys.add(key);
  }
  return keys;
}

/**
 * The objects the `expired` builds reference and no `kept` build does. Objects belong to one site
 * (object-export.ts), so only the sites whose part differs are read, and only their parts.
 */
async function onlyReferencedBy(store: ObjectStore, expired: string[], kept: string[]): Promise<Set<string>> {
  const keptParts = new Map<string, Set<string>>();
  for (const id of kept) {
    for (const [site, part] of Object.entries((await readBuild(store, id))?.sites ?? {}))
      keptParts.set(site, (keptParts.get(site) ?? new Set()).add(part));
  }
  const drop = new Set<string>();
  const keep = new Map<string, Set<string>>();
  for (const id of expired) {
    for (const [site, part] of Object.entries((await readBuild(store, id))?.sites ?? {})) {
      if (keptParts.get(site)?.has(part)) continue;
      let siteKeep = keep.get(site);
      if (!siteKeep) {
        siteKeep = new Set();
        for (const keptPart of keptParts.get(site) ?? [])
          for (const key of await partObjects(store, site, keptPart)) siteKeep.add(key);
        keep.set(site, siteKeep);
      }
      for (const key of await partObjects(store, site, part)) if (!siteKeep.has(key)) drop.add(key);
    }
  }
  return drop;
}

/**
 * Which of the objects `keys` the store has whole: a HEAD each for a few, one listing for many.
 * An object of another length than its bytes (a store that kept part of an upload cut off) is
 * not counted, so it is uploaded again.
 */
async function whichExist(store: ObjectStore, keys: string[], plan: ExportPlan): Promise<Set<string>> {
  const found = new Set<string>();
  const whole = (key: string, size: number | null) => size === plan.objects.get(key)!.size();
  if (keys.length > LIST_ABOVE) {
    const wanted = new Set(keys);
    for await (const { key, size } of store.list(OBJECTS_PREFIX))
      if (wanted.has(key) && whole(key, size)) found.add(key);
    return found;
  }
  await eachLimited(keys, 16, async (key) => {
    if (whole(key, await store.sizeOf(key))) found.add(key);
  });
  return found;
}

/** Runs `work` on every item, at most `limit` at once; the first failure stops the rest and is thrown. */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Per name the higher generation: a rotation already at the edge never goes back. */
function atLeast(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [name, generation] of Object.entries(b)) out[name] = Math.max(out[name] ?? 1, generation);
  return Object.fromEntries(
    Object.entries(out)
      .filter(([, g]) => g > 1)
      .sort(([x], [y]) => x.localeCompare(y)),
  );
}

const sameRecord = (a: Record<string, number>, b: Record<string, number>) =>
  JSON.stringify(atLeast({}, a)) === JSON.stringify(atLeast({}, b));

/** The generations a build recorded, raised to those in keys.json (read by the caller). */
export function edgeKeyGenerations(
  manifest: Manifest,
  keysFile: Record<string, number> | null,
): Record<string, number> {
  return atLeast(manifest.keyGenerations ?? {}, keysFile ?? {});
}
