// `quire deploy`: the current build to object storage. Uploads only objects the store lacks,
// then the build's document, then switches the pointer (current.json) last, so a reader sees the
// old build or the new one, never a mix; a failure anywhere before the switch leaves the old
// build served, and a rerun skips what is already there. Then it prunes builds retired longer
// than the grace period, deleting only objects no kept build references.
import { objectKey, OBJECTS_PREFIX, EXPORT_FORMAT, exportJson, parseBuild, parsePointer, parseSite, POINTER_KEY, buildKey, type ExportPointer } from '../dist/object-export.ts';
import type { Manifest } from '../dist/manifest.ts';
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
  const wanted = [...plan.objects.keys()].filter((hash) => !present.has(hash));
  const there = await whichExist(store, wanted, plan);
  const missing = wanted.filter((hash) => !there.has(hash));
  const buildThere = pointer?.buildId === plan.buildId || (await store.sizeOf(plan.build.key)) === plan.build.bytes.length;

  const keyGenerations = atLeast(pointer?.keyGenerations ?? {}, options.keyGenerations);
  const switched = !pointer || pointer.buildId !== plan.buildId || !sameRecord(pointer.keyGenerations, keyGenerations);
  const summary: DeploySummary = {
    buildId: plan.buildId,
    previousBuildId: pointer?.buildId ?? null,
    uploaded: missing.length + (buildThere ? 0 : 1),
    uploadedBytes: missing.reduce((n, hash) => n + plan.objects.get(hash)!.bytes.length, 0) + (buildThere ? 0 : plan.build.bytes.length),
    skipped: plan.objects.size - missing.length,
    removed: 0,
    switched,
    prunedBuilds: [],
    dryRun,
  };
  if (dryRun) return summary;

  let done = 0;
  let bytes = 0;
  await eachLimited(missing, concurrency, async (hash) => {
    const object = plan.objects.get(hash)!;
    await store.put(objectKey(hash), object.bytes, { contentType: object.contentType, cacheControl: IMMUTABLE });
    bytes += object.bytes.length;
    options.onProgress?.(++done, missing.length, bytes);
  });
  if (!buildThere) await store.put(plan.build.key, plan.build.bytes, { contentType: 'application/json', cacheControl: IMMUTABLE });

  const at = new Date(now()).toISOString();
  const retired = { ...(pointer?.retired ?? {}) };
  if (pointer && pointer.buildId !== plan.buildId) retired[pointer.buildId] = at;
  delete retired[plan.buildId];
  let next: ExportPointer = { format: EXPORT_FORMAT, buildId: plan.buildId, deployedAt: switched ? at : pointer!.deployedAt, keyGenerations, retired };
  if (switched) await writePointer(store, next);

  // The prune: builds retired longer ago than the grace period, and what only they reference.
  const expired = Object.entries(retired).filter(([, when]) => now() - Date.parse(when) >= keepMs).map(([id]) => id);
  if (expired.length) {
    const kept = [plan.buildId, ...Object.keys(retired).filter((id) => !expired.includes(id))];
    const keep = new Set<string>();
    for (const id of kept) for (const hash of await referencedBy(store, id)) keep.add(hash);
    const drop = new Set<string>();
    for (const id of expired) for (const hash of await referencedBy(store, id)) if (!keep.has(hash)) drop.add(hash);
    // Objects first, the build's document last: a prune cut short is found again and finished.
    const keys = [...drop].map(objectKey);
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

/**
 * Every object hash the build `buildId` references (its files and site parts); empty when its
 * document is gone (a prune that got that far). With `known` (the build being deployed), sites
 * whose part is the same there are not read: their files are those the plan has for them.
 */
async function referencedBy(store: ObjectStore, buildId: string, known?: ExportPlan): Promise<Set<string>> {
  const hashes = new Set<string>();
  const key = buildKey(buildId);
  const bytes = await store.get(key);
  if (!bytes) return hashes;
  const build = parseBuild(bytes, key);
  for (const [id, partHash] of Object.entries(build.sites)) {
    hashes.add(partHash);
    if (known?.sites[id] === partHash) {
      for (const hash of known.siteObjects.get(id) ?? []) hashes.add(hash);
      continue;
    }
    const partKey = objectKey(partHash);
    const part = await store.get(partKey);
    if (!part) continue;
    for (const hash of Object.values(parseSite(part, partKey).files)) hashes.add(hash);
  }
  return hashes;
}

/**
 * Which of `hashes` the store has whole: a HEAD each for a few, one listing for many. An object
 * of another length than its bytes (a store that kept part of an upload cut off) is not counted,
 * so it is uploaded again.
 */
async function whichExist(store: ObjectStore, hashes: string[], plan: ExportPlan): Promise<Set<string>> {
  const found = new Set<string>();
  const whole = (hash: string, size: number | null) => size === plan.objects.get(hash)!.bytes.length;
  if (hashes.length > LIST_ABOVE) {
    const wanted = new Set(hashes);
    for await (const { key, size } of store.list(OBJECTS_PREFIX)) {
      const hash = key.slice(OBJECTS_PREFIX.length);
      if (wanted.has(hash) && whole(hash, size)) found.add(hash);
    }
    return found;
  }
  await eachLimited(hashes, 16, async (hash) => {
    if (whole(hash, await store.sizeOf(objectKey(hash)))) found.add(hash);
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
  return Object.fromEntries(Object.entries(out).filter(([, g]) => g > 1).sort(([x], [y]) => x.localeCompare(y)));
}

const sameRecord = (a: Record<string, number>, b: Record<string, number>) => JSON.stringify(atLeast({}, a)) === JSON.stringify(atLeast({}, b));

/** The generations a build recorded, raised to those in keys.json (read by the caller). */
export function edgeKeyGenerations(manifest: Manifest, keysFile: Record<string, number> | null): Record<string, number> {
  return atLeast(manifest.keyGenerations ?? {}, keysFile ?? {});
}
