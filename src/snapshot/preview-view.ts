// What a preview key sees of a site at an instant: every article it has, drafts and scheduled
// ones too, each item and body with a `status` ("draft", "scheduled" or "published") and, where
// set, its `expiresAt`. Expired articles are withdrawn for previews as for everyone. Drafts come
// from the build's preview tree (preview-tree.ts: outside dist/, never what public readers load).
import { newestFirst } from '../articles/list-order.ts';
import { hashBytes } from '../export/content-hash.ts';
import type { Body, Draft, SiteContent } from './snapshot-reader.ts';
import { createFilteredList } from './filtered-list.ts';
import { listBody, listItemSpans, splitListItems } from '../export/list-body.ts';
import { makeListIndex } from '../export/list-index.ts';
import type { ManifestSite } from '../export/manifest.ts';
import { visibilityAt } from '../schedule/windows.ts';

export type PreviewStatus = 'draft' | 'scheduled' | 'published';

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/**
 * A JSON object's bytes with fields added at its end: `{"a":1}` + status → `{"a":1,"status":"draft"}`.
 * The object is our own serialization, so its last byte is its closing brace.
 */
export function withFields(json: Uint8Array, fields: Record<string, string>): Uint8Array {
  if (json[json.length - 1] !== 0x7d) throw new Error('not a JSON object');
  const tail = Object.entries(fields)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join('');
  const out = new Uint8Array(json.length - 1 + encoder.encode(tail).length + 1);
  out.set(json.subarray(0, json.length - 1), 0);
  out.set(encoder.encode(`${tail}}`), json.length - 1);
  return out;
}

interface Entry {
  slug: string;
  status: PreviewStatus;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
  item: Uint8Array;
  body: Uint8Array;
}

export function previewAt(
  site: SiteContent,
  m: ManifestSite,
  drafts: ReadonlyMap<string, Draft>,
  nowMs: number,
): SiteContent {
  const items = splitListItems(site.list.bytes);
  if (!items) throw new Error(`the list of site "${site.id}" is not one a build wrote`);
  const entries: Entry[] = [];
  for (const [slug, e] of Object.entries(m.articles)) {
    const visibility = visibilityAt(e, nowMs);
    const item = items.get(slug);
    const body = site.articles.get(slug);
    if (visibility === 'expired' || !item || !body) continue;
    entries.push({
      slug,
      status: visibility === 'live' ? 'published' : 'scheduled',
      kind: e.kind,
      publishedAt: e.publishedAt,
      updatedAt: e.updatedAt,
      expiresAt: e.expiresAt ?? null,
      item,
      body: body.bytes,
    });
  }
  for (const [slug, { entry: d, item, body }] of drafts) {
    entries.push({
      slug,
      status: 'draft',
      kind: d.kind,
      publishedAt: d.publishedAt,
      updatedAt: d.updatedAt,
      expiresAt: d.expiresAt ?? null,
      item,
      body,
    });
  }
  entries.sort(newestFirst); // the build's list order, drafts by the same rule
  const fieldsOf = (e: Entry) => ({ status: e.status, ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}) });
  const itemBytes = entries.map((e) => withFields(e.item, fieldsOf(e)));
  const list = listBody(site.summary, itemBytes);
  const listHash = hashBytes(list);
  const articles = new Map<string, Body>();
  for (const e of entries) {
    const bytes = withFields(e.body, fieldsOf(e));
    articles.set(e.slug, { bytes, etag: `"${hashBytes(bytes)}"` });
  }
  return {
    ...site,
    list: { bytes: list, etag: `"${listHash}"` },
    items: entries.map((e, i) => ({ item: JSON.parse(utf8.decode(itemBytes[i]!)), kind: e.kind })),
    filtered: createFilteredList(makeListIndex(listHash, entries, listItemSpans(site.summary, itemBytes)), list),
    articles,
  };
}
