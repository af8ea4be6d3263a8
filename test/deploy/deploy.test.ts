// `quire deploy` against a real S3-protocol server (s3rver) on loopback: what a first deploy
// uploads, that a second uploads nothing and one changed article only its own objects, the
// pointer switched last, the prune, rotations carried by the pointer, drafts never uploaded, and
// a deploy SIGKILLed halfway that a rerun finishes.
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { hashBytes } from '../../src/export/content-hash.ts';
import { articleFile, articleFiles, siteFiles, treeFiles } from '../../src/export/layout.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { buildKey, objectKey, parsePointer, POINTER_KEY } from '../../src/export/object-export.ts';
import { deploy, edgeKeyGenerations, type DeploySummary } from '../../src/deploy/deploy.ts';
import { planExport } from '../../src/deploy/export-plan.ts';
import type { ObjectStore } from '../../src/deploy/object-store.ts';
import { projectFolders, article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { runCli, spawnCli, type CliResult } from '../helpers/run-cli.ts';
import { startTestS3, type TestS3 } from '../helpers/s3-server.ts';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3?.close();
});

async function build(p: TempProject): Promise<void> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'https://api.example.com',
  });
  expect(result.ok, JSON.stringify(result.issues)).toBe(true);
}

function deployOf(
  p: TempProject,
  store: ObjectStore,
  extra: Partial<Parameters<typeof deploy>[0]> = {},
): Promise<DeploySummary> {
  const manifest = readManifest(p.distDir)!;
  return deploy({
    store,
    plan: planExport(p.distDir, manifest),
    keyGenerations: edgeKeyGenerations(manifest, null),
    ...extra,
  });
}

async function keysIn(store: ObjectStore, prefix: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const o of store.list(prefix)) keys.add(o.key);
  return keys;
}

const pointerOf = async (store: ObjectStore) => {
  const bytes = await store.get(POINTER_KEY);
  return bytes ? parsePointer(bytes) : null;
};

function twoSites(): TempProject {
  const p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  p.write('one/images/cover.png', 'cover-bytes');
  for (let i = 0; i < 5; i++)
    p.write(
      `one/articles/a${i}.md`,
      article({
        title: `A ${i}`,
        status: 'published',
        publishedAt: `2026-01-0${i + 1}`,
        ...(i === 0 ? { image: 'cover.png' } : {}),
      }),
    );
  p.write('one/articles/secret-draft.md', article({ title: 'Draft' }, 'Words nobody may read yet.\n'));
  p.write('two/articles/b.md', article({ title: 'B', status: 'published', publishedAt: '2026-02-01' }));
  return p;
}

describe('quire deploy', () => {
  it('uploads a build once, then nothing, then only what one changed article touches; switches the pointer last', async () => {
    const p = twoSites();
    const store = s3.store('incremental');
    try {
      await build(p);
      const first = await deployOf(p, store);
      const m1 = readManifest(p.distDir)!;
      // Every file of the tree (lists, indexes, bodies, stored variants, the image), each site's part, the build document.
      const publicFiles = treeFiles(m1); // dist/ holds no drafts
      expect(publicFiles.length).toBeGreaterThanOrEqual(2 * 2 + 6 + 1);
      expect(first).toMatchObject({
        buildId: m1.buildId,
        previousBuildId: null,
        uploaded: publicFiles.length + 2 + 1,
        skipped: 0,
        removed: 0,
        switched: true,
      });
      expect((await pointerOf(store))!.buildId).toBe(m1.buildId);
      const objectsAfterFirst = await keysIn(store, 'objects/');

      // Drafts never leave the machine: no stored object holds the draft's text.
      for (const key of objectsAfterFirst)
        expect(new TextDecoder().decode((await store.get(key))!)).not.toContain('Words nobody may read');

      const again = await deployOf(p, store);
      expect(again).toMatchObject({ uploaded: 0, uploadedBytes: 0, switched: false, removed: 0 });
      expect(again.skipped).toBe(first.uploaded - 1);

      p.write('one/articles/a3.md', article({ title: 'A 3, revised', status: 'published', publishedAt: '2026-01-04' }));
      await build(p);
      const m2 = readManifest(p.distDir)!;
      const dryRun = await deployOf(p, store, { dryRun: true });
      expect(dryRun).toMatchObject({ dryRun: true, switched: true });
      expect((await pointerOf(store))!.buildId).toBe(m1.buildId); // a dry run writes nothing
      expect(await keysIn(store, 'objects/')).toEqual(objectsAfterFirst);

      const changed = await deployOf(p, store);
      // The article's body, the site's list and index (with their stored variants),
      // the site's part, the build document: nothing of the other articles or the other site.
      const touched = [
        ...articleFiles('one', 'a3', m2.sites.one!.articles.a3!.encodings),
        ...siteFiles('one', m2.sites.one!.listEncodings),
      ];
      const expected = touched.map((k) => objectKey('one', hashBytes(fs.readFileSync(path.join(p.distDir, k)))));
      const added = [...(await keysIn(store, 'objects/'))].filter((k) => !objectsAfterFirst.has(k));
      expect(added).toHaveLength(expected.length + 1);
      expect(added).toEqual(expect.arrayContaining(expected));
      expect(added.every((k) => k.startsWith('objects/one/'))).toBe(true);
      expect(changed).toMatchObject({
        uploaded: expected.length + 2,
        previousBuildId: m1.buildId,
        buildId: m2.buildId,
        switched: true,
      });
      expect(changed.uploaded).toBeLessThan(10);
      const pointer = (await pointerOf(store))!;
      expect(pointer.buildId).toBe(m2.buildId);
      expect(Object.keys(pointer.retired)).toEqual([m1.buildId]);
      expect(await store.sizeOf(buildKey(m2.buildId))).not.toBeNull();
    } finally {
      p.cleanup();
    }
  }, 60_000);

  it('prunes a build retired longer than the grace period, keeping every object a kept build references', async () => {
    const p = twoSites();
    const store = s3.store('prune');
    let now = Date.parse('2026-06-01T00:00:00Z');
    const clock = { now: () => now, keepMs: 3600_000 };
    try {
      await build(p);
      await deployOf(p, store, clock);
      const b1 = readManifest(p.distDir)!.buildId;
      const first = await keysIn(store, 'objects/');
      p.write('two/articles/b.md', article({ title: 'B, revised', status: 'published', publishedAt: '2026-02-01' }));
      await build(p);
      now += 60_000;
      const second = await deployOf(p, store, clock);
      expect(second.removed).toBe(0); // b1 is retired, but within the grace period
      expect(await store.sizeOf(buildKey(b1))).not.toBeNull();

      now += 2 * 3600_000;
      const third = await deployOf(p, store, clock); // same build: prunes b1 all the same
      expect(third).toMatchObject({ uploaded: 0, prunedBuilds: [b1] });
      expect(await store.sizeOf(buildKey(b1))).toBeNull();
      const kept = await keysIn(store, 'objects/');
      // Removed: site two's old body, list, index and part, nothing else.
      expect(third.removed).toBe(4 + 1);
      expect([...first].filter((k) => !kept.has(k))).toHaveLength(4);
      expect((await pointerOf(store))!.retired).toEqual({});
      // Everything the current build names is still there.
      const plan = planExport(p.distDir, readManifest(p.distDir)!);
      for (const key of plan.objects.keys()) expect(kept.has(key), key).toBe(true);
    } finally {
      p.cleanup();
    }
  }, 60_000);

  it('fails, leaving the pointer, when a file changes between planning and upload (a build swapped in)', async () => {
    const p = twoSites();
    const store = s3.store('swapped');
    try {
      await build(p);
      const manifest = readManifest(p.distDir)!;
      const plan = planExport(p.distDir, manifest);
      fs.appendFileSync(path.join(p.distDir, articleFile('one', 'a2')), ' ');
      await expect(deploy({ store, plan, keyGenerations: {} })).rejects.toThrow(/changed while it was deployed/);
      expect(await pointerOf(store)).toBeNull();
    } finally {
      p.cleanup();
    }
  }, 60_000);

  it('carries key rotations in the pointer, and never lowers a generation already deployed', async () => {
    const p = twoSites();
    const store = s3.store('rotation');
    try {
      await build(p);
      const manifest = readManifest(p.distDir)!;
      const plan = planExport(p.distDir, manifest);
      await deploy({ store, plan, keyGenerations: edgeKeyGenerations(manifest, { one: 3 }) });
      expect((await pointerOf(store))!.keyGenerations).toEqual({ one: 3 });
      // Same build, a later rotation: only the pointer changes.
      const rotated = await deploy({
        store,
        plan,
        keyGenerations: edgeKeyGenerations(manifest, { one: 4, 'two.preview': 2 }),
      });
      expect(rotated).toMatchObject({ uploaded: 0, switched: true });
      expect((await pointerOf(store))!.keyGenerations).toEqual({ one: 4, 'two.preview': 2 });
      // A deploy from a machine whose keys.json lost the rotation does not bring the old key back.
      await deploy({ store, plan, keyGenerations: {} });
      expect((await pointerOf(store))!.keyGenerations).toEqual({ one: 4, 'two.preview': 2 });
    } finally {
      p.cleanup();
    }
  }, 60_000);
});

describe('quire deploy (the command)', () => {
  let p: TempProject;
  beforeAll(async () => {
    p = createTempProject();
    writeSite(p, 'big');
    for (let i = 0; i < 300; i++)
      p.write(
        `big/articles/post-${i}.md`,
        article({ title: `Post ${i}`, status: 'published', publishedAt: '2026-03-01' }, `Body ${i}.\n`),
      );
    await build(p);
  }, 60_000);
  afterAll(() => p?.cleanup());

  it('says what is missing before touching anything', async () => {
    const noBucket = await runCli(['deploy'], projectFolders(p));
    expect(noBucket.code).toBe(2);
    expect(noBucket.stderr).toContain('QUIRE_S3_BUCKET: must be set');
    const bad = await runCli(['deploy'], {
      ...projectFolders(p),
      QUIRE_S3_BUCKET: 'Not A Bucket',
      QUIRE_S3_ENDPOINT: 'ftp://x',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('QUIRE_S3_BUCKET: must be a bucket name');
    expect(bad.stderr).toContain('QUIRE_S3_ENDPOINT: must use http or https');
  }, 30_000);

  it("a storage that fails is a problem with a code and a fix, not the SDK's text; nothing is switched", async () => {
    const firstLines = (r: CliResult) => r.stderr.split('\n').slice(0, 2);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    // No credentials anywhere the SDK looks (environment, files, instance metadata).
    const noCredentials = {
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: '',
      AWS_SHARED_CREDENTIALS_FILE: path.join(p.root, 'none'),
      AWS_CONFIG_FILE: path.join(p.root, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const cases: [Record<string, string>, string, RegExp][] = [
      [
        { QUIRE_S3_BUCKET: 'no-such-bucket' },
        'DEPLOY_BUCKET_NOT_FOUND',
        /^the bucket "no-such-bucket" does not exist at http:\/\/127\.0\.0\.1:\d+: create it, or correct QUIRE_S3_BUCKET and QUIRE_S3_ENDPOINT$/,
      ],
      [
        noCredentials,
        'DEPLOY_CREDENTIALS_MISSING',
        /^no credentials to sign the requests to http:\/\/127\.0\.0\.1:\d+ with: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
      ],
      [
        { AWS_ACCESS_KEY_ID: 'NOT-A-KEY' },
        'DEPLOY_ACCESS_DENIED',
        /refused the request to the bucket "quire-test" \(403 InvalidAccessKeyId: .*\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
      ],
      [
        { QUIRE_S3_ENDPOINT: `http://127.0.0.1:${port}` },
        'DEPLOY_STORAGE_UNREACHABLE',
        new RegExp(
          `^http://127\\.0\\.0\\.1:${port} cannot be reached \\(.*ECONNREFUSED.*\\): check QUIRE_S3_ENDPOINT and the network$`,
        ),
      ],
    ];
    for (const [extra, code, message] of cases) {
      const r = await runCli(['deploy'], { ...projectFolders(p), ...s3.env('failing'), ...extra });
      const [first, second] = firstLines(r);
      expect({ code, exit: r.code, first, second }).toEqual({
        code,
        exit: 1,
        first: expect.stringMatching(new RegExp(`\\S  \\[${code}\\]$`)),
        second: expect.stringMatching(/^Nothing more was deployed; run `quire deploy` again/),
      });
      expect(first!.replace(/  \[\w+\]$/, '')).toMatch(message);
    }
    expect(await keysIn(s3.store('failing'), '')).toEqual(new Set());

    const unbuilt = createTempProject();
    try {
      writeSite(unbuilt, 'one');
      const r = await runCli(['deploy'], { ...projectFolders(unbuilt), ...s3.env('failing') });
      expect([r.code, r.stderr]).toEqual([
        1,
        `no build in ${unbuilt.distDir}: run \`quire build\` first  [BUILD_MISSING]\n`,
      ]);
    } finally {
      unbuilt.cleanup();
    }
  }, 60_000);

  it('killed halfway leaves the pointer as it was; run again, it uploads only the rest and switches', async () => {
    const env = { ...projectFolders(p), ...s3.env('killed') };
    const store = s3.store('killed');
    const objects = planExport(p.distDir, readManifest(p.distDir)!).objects.size; // 300 bodies, the list, its index and variants, the part
    expect(objects).toBeGreaterThanOrEqual(303);
    const dry = await runCli(['deploy', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: would upload ${objects + 1} objects`);
    expect(dry.stdout).toMatch(/skipped 0, removed 0; would switch current\.json to build/);
    expect(await keysIn(store, '')).toEqual(new Set());

    // One upload at a time, killed (SIGKILL, the whole process group) at its first progress line:
    // the upload under way then is cut off.
    const run = spawnCli(['deploy', '--concurrency', '1'], env);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no progress line')), 30_000);
      run.child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes(`uploaded 100/${objects} objects`)) {
          clearTimeout(timer);
          run.kill();
          resolve();
        }
      });
    });
    await run.result;
    expect(await pointerOf(store)).toBeNull();
    const partial = (await keysIn(store, 'objects/')).size;
    expect(partial).toBeGreaterThanOrEqual(100);
    expect(partial).toBeLessThan(objects);

    const rerun = await runCli(['deploy'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary =
      /uploaded (\d+) objects \(.*\), skipped (\d+), removed 0; switched current\.json to build (\S+);/.exec(
        rerun.stdout,
      );
    expect(summary, rerun.stdout).not.toBeNull();
    // What the killed run stored whole is skipped; an upload cut off by the kill (this server keeps
    // what it received) has the wrong length and is uploaded again.
    const [uploaded, skipped] = [Number(summary![1]), Number(summary![2])];
    expect(uploaded + skipped).toBe(objects + 1);
    expect(skipped).toBeGreaterThanOrEqual(partial - 1);
    expect(skipped).toBeLessThanOrEqual(partial);
    expect((await pointerOf(store))!.buildId).toBe(readManifest(p.distDir)!.buildId);
    expect((await keysIn(store, 'objects/')).size).toBe(objects);
    // Every object is whole: named by the hash of the bytes stored.
    for (const key of await keysIn(store, 'objects/'))
      expect(hashBytes((await store.get(key))!), key).toBe(key.slice(key.lastIndexOf('/') + 1));
  }, 90_000);
});
