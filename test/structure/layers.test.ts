// Every folder of src/ is in one layer of the dependency rules, and docs/ARCHITECTURE.md names the
// layers as the rules do. The rules (unlayered-folder-*) see only folders that import or are
// imported; this finds one that does neither (a new kit that imports only packages, say).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as {
  layers: Record<string, string[]>;
  forbidden: { name: string; from: { path?: string; pathNot?: string } }[];
};

const srcFolders = fs
  .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The layer table of the Folders section: `| name | \`a\`, \`b\` |` rows. */
function documentedLayers(): Record<string, string[]> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Folders\n'), doc.indexOf('\n## ', doc.indexOf('\n## Folders\n') + 1));
  const layers: Record<string, string[]> = {};
  for (const row of section.matchAll(/^\| *([^|`]+?) *\| *(`[^|]*`) *\|$/gm)) {
    layers[row[1]!] = [...row[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  }
  return layers;
}

describe('layers', () => {
  it('name every folder of src/ once, and no folder that is not there', () => {
    const named = Object.values(config.layers).flat();
    expect([...named].sort()).toEqual(srcFolders);
    expect(new Set(named).size).toBe(named.length);
  });

  it('are what the rule against unlayered folders checks', () => {
    const rule = config.forbidden.find((r) => r.name === 'unlayered-folder-imports')!;
    const inALayer = new RegExp(rule.from.pathNot!);
    for (const folder of srcFolders) expect(inALayer.test(`src/${folder}/module.ts`), folder).toBe(true);
    expect(inALayer.test('src/not-a-folder-of-any-layer/module.ts')).toBe(false);
  });

  it('are named in docs/ARCHITECTURE.md as the rules name them, with the same folders', () => {
    const sorted = (layers: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(layers).map(([name, folders]) => [name, [...folders].sort()]));
    expect(sorted(documentedLayers())).toEqual(sorted(config.layers));
  });
});
