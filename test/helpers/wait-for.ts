// Polls until a condition holds, failing with the process output that was waited on.

/** Resolves once `check` holds; after `timeoutMs` throws with `output()` (what the awaited process printed). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  output: () => string,
  timeoutMs = 30_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out:\n${output()}`);
}
