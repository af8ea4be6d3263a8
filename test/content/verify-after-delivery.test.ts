// site.yaml `verifyAfterDelivery`: whether each delivered article's live page is checked, and how
// long after the delivery first; read from the content tree and carried in the build's manifest to
// wherever deliveries run.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { loadContent } from '../../src/content/load-content.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const SITE = 'name: S\nlang: en\nurl: https://s.example.com\n';

async function load(extra: string) {
  p = createTempProject();
  writeSite(p, 's', `${SITE}${extra}`);
  return loadContent(p.contentDir);
}

describe('site.yaml verifyAfterDelivery', () => {
  it.each([
    ['', 30_000],
    ['verifyAfterDelivery: true\n', 30_000],
    ['verifyAfterDelivery: false\n', null],
    ['verifyAfterDelivery: 2m\n', 120_000],
    ['verifyAfterDelivery: 0s\n', 0],
    ['verifyAfterDelivery: 45\n', 45_000],
  ])('%j checks after %j ms (null: never)', async (line, ms) => {
    const { issues, sites } = await load(line);
    expect(issues).toEqual([]);
    expect(sites[0]!.site.verifyAfterDeliveryMs).toBe(ms);
  });

  it.each([['soon'], ['2h'], ['-5s']])('refuses %j where it stands', async (value) => {
    const { issues } = await load(`verifyAfterDelivery: ${value}\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'CONTENT_FIELD_TYPE', line: 4 });
    expect(issues[0]!.message).toContain('true, false or a delay of at most 1h');
  });

  it('reaches the manifest: the delay in milliseconds, or false', async () => {
    p = createTempProject();
    writeSite(p, 'on', `${SITE}verifyAfterDelivery: 90s\n`);
    writeSite(p, 'off', `${SITE}verifyAfterDelivery: false\n`);
    for (const id of ['on', 'off']) p.write(`${id}/articles/a.md`, article({ title: 'A', status: 'published' }));
    const settings = {
      contentDir: p.contentDir,
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://127.0.0.1',
    };
    expect((await buildExport(settings)).ok).toBe(true);
    const manifest = JSON.parse(fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8'));
    expect(manifest.sites.on.verifyAfterDelivery).toBe(90_000);
    expect(manifest.sites.off.verifyAfterDelivery).toBe(false);
    // A change of the setting alone is a new build.
    writeSite(p, 'on', `${SITE}verifyAfterDelivery: 2m\n`);
    expect((await buildExport(settings)).written).toBe(true);
    expect(
      JSON.parse(fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8')).sites.on.verifyAfterDelivery,
    ).toBe(120_000);
  });
});
