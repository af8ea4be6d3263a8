// "Did you mean …?": the known name nearest to a mistyped one, for content fields and CLI options.

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

/** The nearest of `known` within `maxDistance` edits (ties: the first listed), or null. */
export function closestName(name: string, known: readonly string[], maxDistance = 2): string | null {
  let best: string | null = null;
  let bestDistance = maxDistance + 1;
  for (const k of known) {
    const d = editDistance(k, name);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
