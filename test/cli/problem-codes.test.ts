// Every problem a command prints carries its catalogue code, at the end of its first line: those
// a command reports itself and those thrown out of it (a state database that cannot be reached,
// a keys.json that cannot be read), which the CLI prints as it stops.
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.ts';
import { article, createTempProject, projectFolders, writeSite, type TempProject } from '../helpers/temp-content.ts';

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

const firstLine = (r: CliResult) => r.stderr.split('\n')[0];

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('problem codes in what commands print', () => {
  it('a problem thrown out of a command: the state database cannot be reached, keys.json cannot be read', async () => {
    project();
    const port = await closedPort();
    const db = await runCli(['publish'], {
      ...projectFolders(p),
      QUIRE_DATABASE_URL: `postgres://quire:pw@127.0.0.1:${port}/quire`,
    });
    expect(db.code).toBe(1);
    expect(firstLine(db)).toMatch(
      new RegExp(
        `^PostgreSQL at 127\\.0\\.0\\.1:${port}/quire as quire cannot be reached .*  \\[DATABASE_UNREACHABLE\\]$`,
      ),
    );

    fs.mkdirSync(p.stateDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(p.stateDir, 'keys.json'), '{not json');
    const keys = await runCli(['keys'], projectFolders(p));
    expect(keys.code).toBe(1);
    expect(firstLine(keys)).toMatch(/keys\.json cannot be used .*  \[KEY_STATE_UNREADABLE\]$/);
  });

  it('a problem a command reports: redeliver, retry, webhook test, state backup, verify', async () => {
    project();
    const env = projectFolders(p);
    const cases: [string[], string][] = [
      [['redeliver', 'nosuch'], 'DELIVERY_NOT_FOUND'],
      [['deliveries', 'retry', 'nosuch'], 'DELIVERY_NOT_FOUND'],
      [['webhook', 'test', 'one'], 'NO_WEBHOOK'],
      [['verify', 'one', '--url', 'https://one.example.com', '--slug', 'nosuch'], 'SLUG_NOT_PUBLISHED'],
    ];
    for (const [args, code] of cases) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, first: firstLine(r) }).toEqual({
        args,
        code: 1,
        first: expect.stringMatching(new RegExp(`\\S  \\[${code}\\]$`)),
      });
    }
    // A target that is there and is no backup is refused.
    const target = path.join(p.root, 'not-a-backup');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'notes.txt'), 'mine');
    expect((await runCli(['publish', '--baseline'], env)).code).toBe(0); // a state to back up
    const backup = await runCli(['state', 'backup', target], env);
    expect(backup.code).toBe(1);
    expect(firstLine(backup)).toMatch(/\S  \[STATE_BACKUP_REFUSED\]$/);
  });
});
