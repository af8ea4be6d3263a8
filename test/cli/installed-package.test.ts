// Quire as a dependency of a content repository: `npm pack` this checkout, install the tarball
// into a fresh git repository, and run `quire init`, `build` and `start` there. Content, dist/
// and state must be the repository's; nothing is written into the installed package but the
// CLI's bundle cache; `git add -A` stages no secret and no build output. A fresh clone passes
// the workflow init wrote; `quire edge` runs the installed package's Worker.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { startProgram } from '../helpers/run-cli.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// npm and npx from the PATH, run by the Node that runs the tests (first on the PATH).
const NODE_BIN = path.dirname(process.execPath);
const NPM = 'npm';
const NPX = 'npx';

let tmp: string;
let repo: string;

// `npm test` passes down what it knows of this checkout (npm_package_*, npm_config_local_prefix,
// INIT_CWD…); npm in the repository must not act on this checkout. Settings (cache, nodedir) stay.
const OF_THIS_CHECKOUT =
  /^(npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|npm_config_call$|INIT_CWD$)/i;
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !OF_THIS_CHECKOUT.test(k)) env[k] = v;
  return { ...env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}` };
}

function run(
  command: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...npmEnv(), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${path.basename(command)} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-installed-'));
  const packDir = path.join(tmp, 'pack');
  fs.mkdirSync(packDir);
  // The kits (`quire/client`, `quire/receiver`, `quire/astro`) as `npm install` (the prepare script) builds them from the sources now.
  await run(process.execPath, [path.join(ROOT, 'bin', 'build-client.js')], ROOT); // every kit
  await run(NPM, ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], ROOT);
  const [tarball] = fs.readdirSync(packDir);
  repo = path.join(tmp, 'repo');
  fs.mkdirSync(repo);
  execFileSync('git', ['-C', repo, 'init', '-q']);
  await run(NPM, ['init', '-y'], repo);
  // Every dependency is in npm's cache after this checkout's own install.
  await run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(packDir, tarball!)], repo);
}, 120_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The `file:` paths package.json and package-lock.json install from that are not files inside `dir`. */
function fileSpecsOutside(dir: string): string[] {
  const specs = [
    fs.readFileSync(path.join(dir, 'package.json'), 'utf8'),
    fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'),
  ].flatMap((text) => [...text.matchAll(/"file:([^"]+)"/g)].map((m) => m[1]!));
  expect(specs.length).toBeGreaterThan(0);
  return specs.filter((spec) => {
    const file = path.resolve(dir, spec);
    return path.relative(dir, file).startsWith('..') || !fs.existsSync(file);
  });
}

async function expectSignInPage(port: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/admin/sign-in`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toMatch(/<form[^>]*action="\/admin\/sign-in"/);
}

// `--no`: never fetch a package of that name from the registry; the installed one or nothing.
const quire = (...args: string[]) => run(NPX, ['--no', 'quire', ...args], repo);

describe('Quire installed into a content repository', () => {
  it('leaves git clean in this checkout: the tarball `npm pack` writes here is ignored', () => {
    const name = `quire-${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}.tgz`;
    // check-ignore exits 0 when the path is ignored (it need not exist).
    expect(execFileSync('git', ['-C', ROOT, 'check-ignore', '--no-index', name], { encoding: 'utf8' }).trim()).toBe(
      name,
    );
  });

  it('ships the CLI, the built kits and the docs, nothing else of its own repository (tests, content, scripts)', () => {
    const pkg = path.join(repo, 'node_modules', 'quire');
    expect(fs.readdirSync(pkg).sort()).toEqual([
      'README.md',
      'astro',
      'bin',
      'client',
      'docs',
      'package.json',
      'receiver',
      'src',
      'tsconfig.json',
    ]);
  });

  it('its kits import by their package names in plain Node', async () => {
    const script = `const kits = [await import('quire/receiver'), await import('quire/receiver/web'), await import('quire/astro')];
      console.log(JSON.stringify(kits.map((kit) => Object.keys(kit).sort())));`;
    const out = await run(process.execPath, ['--input-type=module', '-e', script], repo);
    expect(JSON.parse(out.stdout)).toEqual([
      ['verifyPreviewToken', 'verifyWebhook'],
      ['verifyPreviewToken', 'verifyWebhook'],
      ['quireLoader'],
    ]);
  });

  it("runs init, build and start there, on the repository's own content, dist/ and state", async () => {
    const init = await quire('init');
    // Installed from ../pack/: init keeps the tarball in the repository, for a clone's npm ci.
    expect(init.stdout).toContain(
      'to vendor/quire-0.1.0.tgz: package.json and package-lock.json now install Quire from file:vendor/quire-0.1.0.tgz',
    );
    const build = await quire('build');
    expect(build.stdout).toMatch(/^Built 1 article \(1 live, 0 drafts\)/);

    // The command npx runs, started directly so that stop() ends it by its process group.
    const bin = path.join(repo, 'node_modules', '.bin', 'quire');
    const server = await startProgram(
      process.execPath,
      [bin, 'start'],
      { PORT: '0' },
      /key: (\S+)[\s\S]*Publishing app:/,
      60_000,
      repo,
    );
    try {
      const port = /Content API on http:\/\/localhost:(\d+)\/v1/.exec(server.output())![1];
      const res = await fetch(`http://127.0.0.1:${port}/v1/articles`, {
        headers: { authorization: `Bearer ${server.match[1]}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { articles: { slug: string }[] };
      expect(body.articles.map((a) => a.slug)).toEqual(['hello-world']);

      // `quire/client` as the repository's own code imports it: plain Node, no TypeScript loader.
      const script = `import { createClient } from 'quire/client';
        const client = createClient({ baseUrl: 'http://127.0.0.1:${port}', key: process.argv[1] });
        const slugs = [];
        for await (const a of client.articles()) slugs.push(a.slug);
        const one = await client.getArticle('hello-world');
        console.log(JSON.stringify({ slugs, title: one.title, missing: await client.getArticle('nope') }));`;
      const out = await run(process.execPath, ['--input-type=module', '-e', script, server.match[1]!], repo);
      expect(JSON.parse(out.stdout)).toEqual({ slugs: ['hello-world'], title: 'Hello, world', missing: null });

      // The Publishing app's views are JSX: compiled for hono/jsx in the installed package too.
      await expectSignInPage(port!);
    } finally {
      await server.stop();
    }

    for (const own of ['content', 'dist', '.quire', '.dist.work'])
      expect(fs.existsSync(path.join(repo, own))).toBe(true);
    const pkg = path.join(repo, 'node_modules', 'quire');
    for (const own of ['content', 'dist', '.quire', '.dist.work'])
      expect(fs.existsSync(path.join(pkg, own))).toBe(false);

    execFileSync('git', ['-C', repo, 'add', '-A']);
    const staged = execFileSync('git', ['-C', repo, 'diff', '--cached', '--name-only'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(staged.filter((f) => !['package.json', 'package-lock.json'].includes(f)).sort()).toEqual([
      '.github/workflows/quire.yml',
      '.gitignore',
      'content/my-site/articles/hello-world.md',
      'content/my-site/authors/editor.yaml',
      'content/my-site/site.yaml',
      'vendor/quire-0.1.0.tgz',
    ]);
  }, 90_000);

  it('passes the workflow init wrote in a fresh clone: npm ci and the check job, then a publish to a receiver', async () => {
    execFileSync('git', ['-C', repo, 'add', '-A']);
    execFileSync('git', [
      '-C',
      repo,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-qm',
      'content repository',
    ]);
    // An empty folder of its own, as CI's checkout: nothing beside it (no ../pack/).
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-clone-'));
    const receiver = await startHttpsReceiver();
    try {
      const clone = path.join(elsewhere, 'clone');
      execFileSync('git', ['clone', '-q', repo, clone]);
      const workflow = parse(fs.readFileSync(path.join(clone, '.github', 'workflows', 'quire.yml'), 'utf8')) as {
        jobs: { check: { steps: { run?: string }[] } };
      };
      const steps = workflow.jobs.check.steps.flatMap((s) => (s.run ? [s.run] : []));
      expect(steps).toEqual(['npm ci', 'npx --no quire check --format github']);
      // What a CI machine's npm ci reads: every `file:` the lock names must be in the clone (npm's
      // cache on this machine holds the tarball by its integrity, and would hide one that is not).
      expect(fileSpecsOutside(clone)).toEqual([]);
      // Each step as the runner runs it, in a shell; dependencies from npm's cache when it has them.
      const results = [];
      for (const step of steps)
        results.push(await run('sh', ['-c', step], clone, { npm_config_prefer_offline: 'true' }));
      expect(results[1]!.stdout).toBe(''); // no problem, so no workflow command
      expect(results[1]!.stderr).toMatch(/Checked 1 article in 1 site: no problems/);

      // The commented publish job's step, against a local HTTPS receiver.
      const secret = 'a-receiver-secret-0123456789abcdef';
      receiver.respond((req) =>
        verifyWebhook(req.rawBody, req.headers, secret).ok ? { status: 200 } : { status: 401 },
      );
      const local = { QUIRE_ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: receiver.caFile };
      await run(
        NPX,
        ['--no', 'quire', 'webhook', 'set', 'my-site', '--url', `${receiver.url}/hooks/quire`, '--secret', secret],
        clone,
        local,
      );
      const published = await run('sh', ['-c', 'npx --no quire publish'], clone, local);
      expect(published.stdout).toMatch(/delivered/i);
      expect(
        receiver.requests.map((r) => [
          r.headers['x-quire-event'],
          (JSON.parse(r.rawBody.toString()) as { article: { slug: string } }).article.slug,
        ]),
      ).toEqual([['published', 'hello-world']]);
    } finally {
      await receiver.close();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 180_000);

  it('runs the edge Worker of the installed package (`quire edge`, with Miniflare installed) and writes the wrangler.toml that deploys it', async () => {
    // Miniflare (and workerd) is not a dependency of Quire: without it, a problem says what to install.
    await expect(quire('edge', '--port', '0')).rejects.toThrow(
      /npm install --save-dev miniflare@4\s+\[EDGE_RUNTIME_MISSING\]/,
    );

    const init = await quire('edge', '--init');
    expect(init.stdout).toContain('made   wrangler.toml (main = "node_modules/quire/src/edge/worker.ts"');
    expect(init.stdout).toContain('npx wrangler deploy');
    const toml = fs.readFileSync(path.join(repo, 'wrangler.toml'), 'utf8');
    const main = /^main = "([^"]+)"$/m.exec(toml)![1]!;
    expect(fs.existsSync(path.join(repo, main))).toBe(true);
    expect(toml).toMatch(/^binding = "QUIRE_EXPORT"$/m);
    await expect(quire('edge', '--init')).rejects.toThrow(/wrangler\.toml is there already; nothing was written/);
    expect(fs.readFileSync(path.join(repo, 'wrangler.toml'), 'utf8')).toBe(toml);

    // The version this checkout tests with, from npm's cache.
    const miniflare = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'miniflare', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    await run(
      NPM,
      ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', `miniflare@${miniflare}`],
      repo,
    );
    const { key } = (JSON.parse((await quire('keys', '--json')).stdout) as { key: string }[])[0]!;
    const bin = path.join(repo, 'node_modules', '.bin', 'quire');
    const edge = await startProgram(
      process.execPath,
      [bin, 'edge', '--port', '0'],
      {},
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
      90_000,
      repo,
    );
    try {
      expect(edge.output()).toMatch(/deployed build \S+ to the local bucket: \d+ objects uploaded/);
      const res = await fetch(`${edge.match[1]}/v1/articles/hello-world`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { title: string }).title).toBe('Hello, world');
      expect((await fetch(`${edge.match[1]}/v1/articles/hello-world`)).status).toBe(401);
    } finally {
      await edge.stop();
    }
  }, 180_000);

  it('serves the Publishing app from the TypeScript sources when the CLI cannot be bundled', async () => {
    // A file where the bundle cache's folder belongs: bundling fails, bin/quire.js runs the sources through tsx.
    const cache = path.join(repo, 'node_modules', 'quire', 'node_modules', '.cache', 'quire-cli');
    fs.rmSync(cache, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.writeFileSync(cache, 'not a folder');
    const bin = path.join(repo, 'node_modules', '.bin', 'quire');
    const server = await startProgram(
      process.execPath,
      [bin, 'start'],
      { PORT: '0' },
      /Content API on http:\/\/localhost:(\d+)\/v1[\s\S]*Publishing app:/,
      60_000,
      repo,
    );
    try {
      expect(server.output()).toContain('running from sources');
      await expectSignInPage(server.match[1]!);
    } finally {
      await server.stop();
      fs.rmSync(cache, { force: true });
    }
  }, 90_000);

  it("types `quire/client` for a TypeScript project that has no settings of Quire's", async () => {
    const dir = path.join(repo, 'typed');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2023', 'DOM'],
        },
      }),
    );
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
    // One run: it fails if the types are missing or `any` (an unused @ts-expect-error is an error).
    fs.writeFileSync(
      path.join(dir, 'use.ts'),
      `import { createClient, type Article } from 'quire/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:1', key: 'k' });
const article = await client.getArticle('x');
export const kind: Article['kind'] | undefined = article?.kind;
export const title: string | undefined = article?.title;
// @ts-expect-error: a title is a string
export const wrong: number | undefined = article?.title;
`,
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], dir);
  }, 60_000);
});
