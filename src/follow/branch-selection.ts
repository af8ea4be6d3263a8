// Which matching branches are previewed when more match than QUIRE_PREVIEW_BRANCHES_MAX: the most
// recently pushed, the others dropped. A branch is "pushed" when the server sees its newest commit
// change (at a tick, or named by a push notification); those found when it started keep the time
// their record says, else count as pushed before any it saw. Pure: the caller says what it saw.

export interface SeenBranch {
  /** The commit the remote named last. */
  tip: string;
  /** When it was pushed (ms); 0: before the server started, with no record. */
  pushedAt: number;
}

/**
 * The branches to preview, newest pushed first (ties by name), at most `max`; and those left out,
 * in the same order.
 */
export function selectBranches(
  seen: ReadonlyMap<string, SeenBranch>,
  max: number,
): { keep: string[]; dropped: string[] } {
  const order = [...seen].sort(([a, x], [b, y]) => y.pushedAt - x.pushedAt || (a < b ? -1 : a > b ? 1 : 0));
  const names = order.map(([name]) => name);
  return { keep: names.slice(0, max), dropped: names.slice(max) };
}

/**
 * What the server now knows of the matching branches, from the remote's listing (`tips`): a new
 * branch, or one whose commit moved or that a push notification named, is pushed `now`; the first
 * listing takes a branch's time from its record (`recorded`), or 0. Branches gone are forgotten.
 */
export function noteTips(
  seen: Map<string, SeenBranch>,
  tips: ReadonlyMap<string, string>,
  opts: { now: number; first: boolean; pushed: ReadonlySet<string>; recorded: (branch: string) => number | null },
): void {
  for (const name of [...seen.keys()]) if (!tips.has(name)) seen.delete(name);
  for (const [name, tip] of tips) {
    const known = seen.get(name);
    const pushed = !opts.first || opts.pushed.has(name);
    if (!known) seen.set(name, { tip, pushedAt: pushed ? opts.now : (opts.recorded(name) ?? 0) });
    else if (known.tip !== tip || opts.pushed.has(name)) seen.set(name, { tip, pushedAt: opts.now });
  }
}
