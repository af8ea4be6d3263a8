// startTestApi() (api-server.ts) in a child process of its own, so that a test can measure the
// server's memory alone, apart from the test's and the load it sends.
import fs from 'node:fs';
import path from 'node:path';
import { createKeyring, type Keyring } from '../../src/keys/api-keys.ts';
import { TEST_SECRET } from './api-server.ts';
import { startProgram } from './run-cli.ts';

export interface TestApiProcess {
  url: string;
  /** The server's keyring (TEST_SECRET, every site at generation 1). */
  keyring: Keyring;
  /** The highest resident set size the server's process has had so far, in bytes (Linux: VmHWM). */
  peakRssBytes(): number;
  close(): Promise<void>;
}

const CHILD = path.join(import.meta.dirname, 'api-server-child.ts');

export async function startTestApiProcess(folders: { distDir: string; stateDir: string }): Promise<TestApiProcess> {
  const server = await startProgram(
    process.execPath,
    ['--import', 'tsx', CHILD, folders.distDir, folders.stateDir],
    {},
    /listening at (http:\/\/\S+)\n/,
  );
  const pid = server.child.pid!;
  return {
    url: server.match[1]!,
    keyring: createKeyring(TEST_SECRET, { generationOf: () => 1 }),
    peakRssBytes() {
      const kib = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (kib === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
      return Number(kib) * 1024;
    },
    close: server.stop,
  };
}
