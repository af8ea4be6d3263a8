// The export of builds to object storage: its keys and documents, the one place that spells them.
// `quire deploy` writes it (src/deploy/), the edge Worker reads it (src/edge/). Keys are relative
// to the bucket's prefix (QUIRE_S3_PREFIX). No Node imports.
//
//   objects/<site>/<hash>   immutable, content-addressed within its site: every public file of a
//                           build (bodies, lists, list indexes, images, whatever the
//                           manifest names: dist/ holds no drafts), and the site's part below;
//                           never rewritten. Per site, so that no object is shared by two sites:
//                           a prune compares a site's builds only, and a cache keyed by object
//                           key cannot hand one site's bytes to another's request
//   builds/<buildId>.json   a build: its manifest's header and, per site, the hash of its part
//   current.json            the pointer, written last: which build is served, the key
//                           generations the edge checks keys against, builds retired and when
//
// A site's part (an object like any other) holds the site's manifest entry and the layout.ts
// key → object hash of each of its files. A site unchanged between two builds has
// the same part, so a deploy and the Worker skip it whole. Readers see the old build or the new
// one, never a mix: nothing a build names is uploaded after the pointer that names it.
import type { ManifestSite } from './manifest.ts';
import { ProblemError } from '../problems/problem.ts';

export const EXPORT_FORMAT = 1;
export const POINTER_KEY = 'current.json';
export const OBJECTS_PREFIX = 'objects/';
export const BUILDS_PREFIX = 'builds/';

/** The key of a site's content-addressed object. */
export const objectKey = (siteId: string, hash: string): string => `${OBJECTS_PREFIX}${siteId}/${hash}`;
/** The key of a build's document. */
export const buildKey = (buildId: string): string => `${BUILDS_PREFIX}${buildId}.json`;

/** A site as exported: what public readers need of its manifest entry, and where its files are. */
export interface ExportSite {
  site: ManifestSite;
  /** layout.ts key → object hash. */
  files: Record<string, string>;
}

export interface ExportBuild {
  format: typeof EXPORT_FORMAT;
  buildId: string;
  builtAt: string;
  renderer: string;
  publicUrl: string;
  inputs: string;
  /** Site id → the hash of its part (an ExportSite, at objectKey(site, hash)). */
  sites: Record<string, string>;
}

export interface ExportPointer {
  format: typeof EXPORT_FORMAT;
  buildId: string;
  /** When this pointer was written (ISO). */
  deployedAt: string;
  /** Per site (and `<site>.preview`), the key generation above 1: rotations reach the edge with the pointer. */
  keyGenerations: Record<string, number>;
  /** Builds no longer pointed to → when they stopped being current (ISO); pruned after a grace period. */
  retired: Record<string, string>;
}

export class ExportFormatError extends ProblemError<'EXPORT_UNREADABLE'> {
  constructor(
    readonly key: string,
    why: string,
  ) {
    super('EXPORT_UNREADABLE', `${key} is not a Quire export document (${why})`);
    this.name = 'ExportFormatError';
  }
}

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/** A document's bytes (one line of JSON). */
export const exportJson = (doc: ExportPointer | ExportBuild | ExportSite): Uint8Array =>
  encoder.encode(`${JSON.stringify(doc)}\n`);

function parseObject(bytes: Uint8Array, key: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(utf8.decode(bytes));
  } catch (err) {
    throw new ExportFormatError(key, `not JSON: ${(err as Error).message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ExportFormatError(key, 'not an object');
  return data as Record<string, unknown>;
}

const isRecordOf = (value: unknown, check: (v: unknown) => boolean): boolean =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every(check);

export function parsePointer(bytes: Uint8Array, key = POINTER_KEY): ExportPointer {
  const data = parseObject(bytes, key);
  if (data.format !== EXPORT_FORMAT)
    throw new ExportFormatError(key, `format ${String(data.format)}, this version reads ${EXPORT_FORMAT}`);
  if (typeof data.buildId !== 'string' || typeof data.deployedAt !== 'string')
    throw new ExportFormatError(key, 'no buildId or deployedAt');
  if (!isRecordOf(data.keyGenerations, (g) => Number.isSafeInteger(g) && (g as number) >= 1))
    throw new ExportFormatError(key, 'keyGenerations is not site → whole number');
  if (!isRecordOf(data.retired, (t) => typeof t === 'string'))
    throw new ExportFormatError(key, 'retired is not build id → time');
  return data as unknown as ExportPointer;
}

export function parseBuild(bytes: Uint8Array, key: string): ExportBuild {
  const data = parseObject(bytes, key);
  if (data.format !== EXPORT_FORMAT)
    throw new ExportFormatError(key, `format ${String(data.format)}, this version reads ${EXPORT_FORMAT}`);
  if (typeof data.buildId !== 'string' || typeof data.publicUrl !== 'string')
    throw new ExportFormatError(key, 'no buildId or publicUrl');
  if (!isRecordOf(data.sites, (h) => typeof h === 'string'))
    throw new ExportFormatError(key, 'sites is not site → hash');
  return data as unknown as ExportBuild;
}

export function parseSite(bytes: Uint8Array, key: string): ExportSite {
  const data = parseObject(bytes, key);
  const site = data.site as Partial<ManifestSite> | undefined;
  if (
    !site ||
    typeof site !== 'object' ||
    typeof site.listHash !== 'string' ||
    !site.articles ||
    typeof site.articles !== 'object'
  )
    throw new ExportFormatError(key, 'no site entry');
  if (!isRecordOf(data.files, (h) => typeof h === 'string'))
    throw new ExportFormatError(key, 'files is not key → hash');
  return data as unknown as ExportSite;
}
