// The command line's own contract: `--help` on any command prints its usage and does nothing
// else; `--version`; unknown options get a suggestion; bad values and unknown sites are errors.
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { SETTING_LINES } from '../../src/config/config.ts';
import { spawnCli, runCli, type CliResult } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

let p: TempProject;
afterEach(() => p?.cleanup());

function project(): TempProject {
  p = createTempProject();
  writeSite(p, 'one');
  p.write(
    'one/articles/a.md',
    article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
  );
  return p;
}
const envFor = (proj: TempProject) => ({
  QUIRE_CONTENT_DIR: proj.contentDir,
  QUIRE_DIST_DIR: proj.distDir,
  QUIRE_STATE_DIR: proj.stateDir,
  PORT: '0',
});

/** Runs a command that must end by itself; a server that starts instead is killed after 20 s. */
async function runBounded(args: string[], env: Record<string, string>): Promise<CliResult & { killed: boolean }> {
  const run = spawnCli(args, env);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    run.kill();
  }, 20_000);
  const result = await run.result;
  clearTimeout(timer);
  return { ...result, killed };
}

describe('quire <command> --help', () => {
  it("prints each command's usage to stdout, exits 0, and does nothing else (no build, no state, no server)", {
    timeout: 120_000,
  }, async () => {
    project();
    for (const spec of COMMANDS) {
      for (const flag of ['--help', '-h']) {
        const args = [spec.name, flag];
        const r = await runBounded(args, envFor(p));
        expect(r.killed, `${args.join(' ')} kept running`).toBe(false);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
        expect(r.stdout).toMatch(new RegExp(`^quire ${spec.name} — `));
        expect(r.stdout).toContain(`usage:\n  quire ${spec.name}`);
        expect(fs.existsSync(p.distDir), `${args.join(' ')} built`).toBe(false);
        expect(fs.existsSync(p.stateDir), `${args.join(' ')} opened the state`).toBe(false);
      }
    }
    // After other arguments too, and for sub-commands.
    for (const args of [
      ['webhook', 'set', 'one', '--help'],
      ['keys', 'rotate', 'one', '-h'],
      ['verify', 'one', '--url', 'https://example.com', '--help'],
    ]) {
      const r = await runBounded(args, envFor(p));
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toMatch(new RegExp(`^quire ${args[0]} — `));
    }
    expect(fs.existsSync(p.stateDir)).toBe(false);
  });

  it('`quire help <command>` is the same as `quire <command> --help`', async () => {
    const [a, b] = await Promise.all([runCli(['help', 'publish'], {}), runCli(['publish', '--help'], {})]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });
});

describe('quire --version and quire --help', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version'], {});
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('lists every command and every setting a user sets (the settings table and docs/settings.md agree), no test-only one', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    for (const spec of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${spec.name} `, 'm'));
    for (const s of SETTING_LINES) expect(r.stdout).toMatch(new RegExp(`^  ${s.name} `, 'm'));
    // A hook for tests (still read: test/export/writer/swap.test.ts uses it) is no user's setting.
    expect(r.stdout).not.toMatch(/QUIRE_TEST_/);
    const settingsPage = fs.readFileSync(path.join(ROOT, 'docs/settings.md'), 'utf8');
    const documented = [...settingsPage.matchAll(/^\| `((?:QUIRE_|PORT|HOST)[A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(documented).toContain('QUIRE_ADMIN_TOKEN');
    for (const name of documented) expect(r.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(SETTING_LINES.map((s) => s.name).sort()).toEqual([...documented].sort());
  });
});

describe('options and values', () => {
  it('an unknown option is an error that suggests the closest known one, and nothing runs', async () => {
    project();
    const r = await runCli(['publish', '--dryrun'], envFor(p));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --dryrun (did you mean --dry-run?)');
    expect(r.stderr).toContain('usage:\n  quire publish');
    expect(fs.existsSync(p.distDir)).toBe(false);
    const escaped = await runCli(['publish', '--\u001b[2Jx'], envFor(p));
    expect(escaped.code).toBe(2);
    expect(escaped.stderr).toContain('unknown option --\\u001b[2Jx');
    expect(escaped.stderr).not.toContain('\u001b');
    const cmd = await runCli(['deliverys'], envFor(p));
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('(did you mean "deliveries"?)');
  });

  it('a mistyped action gets a suggestion, as a mistyped command does', async () => {
    project();
    for (const [args, hint] of [
      [['webhook', 'sett', 'one'], 'quire webhook: unknown action "sett" (did you mean "set"?)'],
      [['keys', 'rotat', 'one'], 'quire keys: unknown action "rotat" (did you mean "rotate"?)'],
      [['deliveries', 'rety'], 'quire deliveries: unknown action "rety" (did you mean "retry"?)'],
      [['state', 'backups', 'x'], 'quire state: unknown action "backups" (did you mean "backup"?)'],
    ] as const) {
      const r = await runCli([...args], envFor(p));
      expect({ args, code: r.code, first: r.stderr.split('\n')[0] }).toEqual({
        args,
        code: 2,
        first: `${hint}  [COMMAND_LINE_INVALID]`,
      });
    }
    expect(fs.existsSync(p.stateDir)).toBe(false);
  });

  it('`start --port` and `--host` point to the PORT and HOST settings, and nothing starts', async () => {
    project();
    for (const [args, hint] of [
      [
        ['start', '--port', '3000'],
        'quire start: --port is not an option; it is the setting PORT, set in the environment: PORT=3000 quire start (PORT=0: any free port)',
      ],
      [
        ['dev', '--port=0'],
        'quire dev: --port is not an option; it is the setting PORT, set in the environment: PORT=0 quire dev (PORT=0: any free port)',
      ],
      [
        ['start', '--port'],
        'quire start: --port is not an option; it is the setting PORT, set in the environment: PORT=8080 quire start (PORT=0: any free port)',
      ],
      [
        ['start', '--host', '0.0.0.0'],
        'quire start: --host is not an option; it is the setting HOST, set in the environment: HOST=0.0.0.0 quire start (beyond loopback, set QUIRE_PUBLIC_URL too)',
      ],
    ] as const) {
      const r = await runBounded([...args], envFor(p));
      expect({ args, killed: r.killed, code: r.code, first: r.stderr.split('\n')[0] }).toEqual({
        args,
        killed: false,
        code: 2,
        first: `${hint}  [COMMAND_LINE_INVALID]`,
      });
    }
    expect(fs.existsSync(p.distDir)).toBe(false);
  });

  it('a port in use: the server names it and how to choose another, and exits 1', async () => {
    project();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const r = await runBounded(['start'], { ...envFor(p), PORT: String(port) });
      expect({ killed: r.killed, code: r.code }).toEqual({ killed: false, code: 1 });
      expect(r.stderr.split('\n')[0]).toBe(
        `port ${port} is in use: another program listens on 127.0.0.1:${port}. Stop it, or choose another port with PORT=<port> (PORT=0: any free port)  [SERVER_PORT_IN_USE]`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a bad value is an error, not silently replaced by a default', async () => {
    project();
    for (const args of [
      ['deliveries', '--limit', 'abc'],
      ['deliveries', '--limit', '0'],
      ['deliveries', '--limit=-5'],
      ['deliveries', '--limit'],
    ]) {
      const r = await runCli(args, envFor(p));
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/--limit (must be a whole number from 1|needs a value)/);
    }
    const flagWithValue = await runCli(['publish', '--dry-run=yes'], envFor(p));
    expect(flagWithValue.code).toBe(2);
    expect(flagWithValue.stderr).toContain('--dry-run takes no value');
    const extra = await runCli(['redeliver', 'a', 'b'], envFor(p));
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('unexpected argument "b"');
  });

  it('an unknown site is an error in every command that takes one', async () => {
    project();
    for (const args of [
      ['deliveries', '--site', 'nosuch'],
      ['keys', '--site', 'nosuch'],
      ['webhook', 'show', 'nosuch'],
      ['webhook', 'test', 'nosuch'],
      ['publish', '--site', 'nosuch', '--dry-run'],
      ['verify', 'nosuch'],
    ]) {
      const r = await runCli(args, envFor(p));
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toMatch(/no site "nosuch"/);
    }
    const known = await runCli(['deliveries', '--site', 'one'], envFor(p));
    expect(known.code).toBe(0);
    // Refused before anything is built or opened.
    const publish = await runCli(['publish', '--site', 'nosuch'], envFor(p));
    expect(publish.code).toBe(1);
    expect(fs.existsSync(p.distDir)).toBe(false);
  });

  it('a wrong command line and an unknown site carry their problem codes; the site list names the content folder as typed', async () => {
    project();
    const firstLine = (r: CliResult) => r.stderr.split('\n')[0];
    for (const args of [
      ['frobnicate'],
      ['help', 'frobnicate'],
      ['publish', '--dryrun'],
      ['deliveries', '--limit', 'abc'],
      ['redeliver', 'a', 'b'],
      ['keys', 'nope'],
      ['state'],
      ['webhook', 'frob', 'one'],
      ['preview', 'one', 'a', '--ttl', '99d'],
      ['init', '--site', 'Not An Id'],
    ]) {
      const r = await runCli(args, envFor(p));
      expect({ args, code: r.code, first: firstLine(r) }).toEqual({
        args,
        code: 2,
        first: expect.stringMatching(/\S  \[COMMAND_LINE_INVALID\]$/),
      });
    }
    expect((await runCli(['help', 'frobnicate'], envFor(p))).stderr).toMatch(/^unknown command "frobnicate"/);
    expect((await runCli(['state'], envFor(p))).stderr).toMatch(
      /^quire state: needs an action, backup or migrate-to-postgres/,
    );
    expect((await runCli(['webhook', 'frob', 'one'], envFor(p))).stderr).toMatch(
      /^quire webhook: unknown action "frob"  \[COMMAND_LINE_INVALID\]\nusage:/,
    );
    const setting = await runCli(['build'], { ...envFor(p), PORT: 'abc' });
    expect([setting.code, firstLine(setting)]).toEqual([2, 'Invalid configuration:  [CONFIG_INVALID]']);
    // Run from the project folder, the content folder is named as typed there.
    for (const args of [
      ['deliveries', '--site', 'nosuch'],
      ['keys', '--site', 'nosuch'],
      ['webhook', 'show', 'nosuch'],
    ]) {
      const r = await runCli(args, { ...envFor(p), QUIRE_CONTENT_DIR: 'content' }, p.root);
      expect({ args, code: r.code, first: firstLine(r) }).toEqual({
        args,
        code: 1,
        first: 'no site "nosuch" in content (sites: one)  [SITE_UNKNOWN]',
      });
    }
  });

  it('verify of a known site with no build yet builds it and checks, rather than calling it unknown', async () => {
    project();
    const r = await runCli(['verify', 'one', '--url', 'http://127.0.0.1:1', '--json'], {
      ...envFor(p),
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    });
    expect(r.stderr).not.toMatch(/no site/);
    const report = JSON.parse(r.stdout) as { articles: { slug: string; checks: { status: string }[] }[] };
    expect(report.articles.map((a) => a.slug)).toEqual(['a']);
    expect(report.articles[0]!.checks.map((c) => c.status)).toContain('error'); // nothing listens there
    expect(r.code).toBe(1);
  });
});
