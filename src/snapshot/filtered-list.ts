// Filtered and paged lists (`kind`, `updatedSince`, `limit`, `offset`) answered from the list
// index the build wrote (list-index.ts), in time that depends on the page, not on the
// site's size: `kind` picks a precomputed group, `updatedSince` is a binary search in the
// group's update order, and the page's items in list order come from a wavelet matrix over
// that order. The items' bytes are sliced out of articles.json, never parsed or re-serialized.
import { ALL_KINDS, type ListIndex } from '../export/list-index.ts';
import { WaveletMatrix } from './wavelet-matrix.ts';

/** What a list is filtered and paged by (the API's list query). */
export interface ListFilter {
  limit: number | null;
  offset: number;
  kind: string | null;
  updatedSince: string | null;
}

export interface ListSelection {
  /** Items that match, before paging. */
  total: number;
  /** The page's items, each its exact bytes from articles.json, in list order. */
  items: Uint8Array[];
}

interface Group {
  /** Positions in the list, in list order. */
  positions: number[];
  /** updatedAt by update order, newest first ('' for none). */
  updatedDesc: string[];
  /** Over update order: the item's place in `positions`. */
  order: WaveletMatrix;
}

export interface FilteredList {
  select(query: ListFilter): ListSelection;
}

export function createFilteredList(index: ListIndex, listBytes: Uint8Array): FilteredList {
  const groups = new Map<string, Group>();
  const placeInGroup = new Int32Array(index.updatedAt.length);
  for (const [kind, positions] of Object.entries(index.byKind)) {
    positions.forEach((position, place) => (placeInGroup[position] = place));
    const byUpdate = index.byUpdate[kind]!;
    groups.set(kind, {
      positions,
      updatedDesc: byUpdate.map((p) => index.updatedAt[p] ?? ''),
      order: new WaveletMatrix(
        byUpdate.map((p) => placeInGroup[p]!),
        positions.length,
      ),
    });
  }
  const itemAt = (position: number) => listBytes.subarray(index.spans[2 * position], index.spans[2 * position + 1]);

  return {
    select(query) {
      const group = groups.get(query.kind ?? ALL_KINDS);
      if (!group) return { total: 0, items: [] };
      const all = group.positions.length;
      // Items updated at or after `updatedSince` are a prefix of the update order.
      const total = query.updatedSince === null ? all : countAtLeast(group.updatedDesc, query.updatedSince);
      const from = Math.min(query.offset, total);
      const to = query.limit === null ? total : Math.min(total, from + query.limit);
      const items: Uint8Array[] = [];
      for (let k = from; k < to; k++) {
        // All of the group matches: its k-th item in list order is simply its k-th.
        const place = total === all ? k : group.order.kthSmallest(total, k);
        items.push(itemAt(group.positions[place]!));
      }
      return { total, items };
    },
  };
}

/** How many of the leading entries of a descending array are >= `bound`. */
function countAtLeast(descending: string[], bound: string): number {
  let lo = 0;
  let hi = descending.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (descending[mid]! >= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
