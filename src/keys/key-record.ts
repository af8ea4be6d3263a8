// The key generations each build saw, recorded in dist/manifest.json. keys.json is the only
// record of rotations; when it is lost or reset while QUIRE_SECRET stays, every site would be
// back at generation 1 and keys rotated away valid again. A dist/ built after a rotation remembers
// it, so such a keys.json is refused, naming both files, instead of trusted.
import { MANIFEST_FILE } from '../export/layout.ts';
import { fileIn } from '../export/export-files.ts';
import type { Manifest } from '../export/manifest.ts';
import { PREVIEW_SUFFIX } from './api-keys.ts';
import { keysFileOf } from '../config/state-layout.ts';
import { KeyStateError, readKeyGenerations, type KeyGenerationFile } from './key-generations.ts';

/**
 * What a build records: keys.json's generations, never lower than what the previous build
 * recorded. A keys.json that cannot be read keeps the previous record (the build does not need
 * keys; the server and `quire keys` refuse to start on it).
 */
export function keyGenerationsToRecord(
  stateDir: string,
  previous: Record<string, number> | undefined,
): Record<string, number> {
  let current: Record<string, number> = {};
  try {
    current = readKeyGenerations(keysFileOf(stateDir)) ?? {};
  } catch (err) {
    if (!(err instanceof KeyStateError)) throw err;
  }
  const record: Record<string, number> = { ...(previous ?? {}) };
  for (const [site, generation] of Object.entries(current)) record[site] = Math.max(record[site] ?? 1, generation);
  return Object.fromEntries(
    Object.entries(record)
      .filter(([, generation]) => generation > 1)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** `site "one" had key`, or `… had preview key`, as a message names a generation's key. */
function keyOfSite(name: string): string {
  return name.endsWith(PREVIEW_SUFFIX)
    ? `site "${name.slice(0, -PREVIEW_SUFFIX.length)}" had preview key`
    : `site "${name}" had key`;
}

/** Throws KeyStateError when keys.json is behind what the build in `distDir` recorded. */
export function checkKeysAgainstBuild(
  generations: KeyGenerationFile,
  manifest: Manifest | null,
  distDir: string,
): void {
  const behind = Object.entries(manifest?.keyGenerations ?? {}).filter(
    ([site, generation]) => generations.generationOf(site) < generation,
  );
  if (!behind.length) return;
  const [site, generation] = behind[0]!;
  const fix = Object.fromEntries(behind.map(([s, g]) => [s, g + 1]));
  throw new KeyStateError(
    `${generations.file} is missing or was reset: ${fileIn(distDir, MANIFEST_FILE)} was built when ${keyOfSite(site)} generation ${generation} ` +
      `(${generations.file} says ${generations.generationOf(site)}), so keys rotated away would be valid again. ` +
      `Restore ${generations.file} from a backup (keep the state dir between runs), or write ${JSON.stringify({ ...generations.all(), ...fix })} to it to give ${behind.length === 1 ? 'that site a new key' : 'those sites new keys'}.`,
  );
}
