// Quire runs on Node.js 22.12 or newer (developed on 24). Many machines and CI images come with
// Node 20, so `npm install` in a Quire checkout brings Node 24 along where the npm registry has it
// for the platform (node-<os>-<arch>, optional dependencies of the dev dependency scripts/node:
// the real binary, which npm links first on every npm script's PATH). A content repository that
// installs Quire does not get it: its own Node is its choice. Run any other way on an older Node
// (`node bin/quire.js`, `npx quire`), a command starts again on that Node 24 when it is installed,
// or says in one line what it needs.
// Written for old Nodes too: nothing here may need more than Node 14.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const MINIMUM_NODE = '22.12.0';

/** Whether `version` (e.g. `20.20.2`) is one Quire runs on. */
export function isSupportedNode(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/** The Node binary npm installed with Quire for this platform, or null. */
export function installedNode(fromFile) {
  const name = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  try {
    const manifest = createRequire(fromFile).resolve(`${name}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** The one line a command prints on a Node too old to run it. */
export function tooOldMessage(version) {
  return (
    `quire: Quire needs Node.js ${MINIMUM_NODE} or newer, and this is Node ${version}. ` +
    'Install Node 24 (https://nodejs.org/en/download, or `nvm install 24`), or run Quire through npm ' +
    '(npm start in a Quire checkout uses the Node 24 its npm install brings along on Linux and Windows).\n'
  );
}

/**
 * On a supported Node: false (go on). Otherwise the command is run again by the installed
 * Node 24 (its exit status and signals passed through) or the one-line message is printed with
 * exit status 1; either way true: the caller must do nothing more.
 */
export function handOffIfTooOld(scriptFile) {
  const version = process.versions.node;
  if (isSupportedNode(version)) return false;
  const node = installedNode(scriptFile);
  if (!node) {
    process.stderr.write(tooOldMessage(version));
    process.exitCode = 1;
    return true;
  }
  // In a process group of its own, so that a terminal's Ctrl-C reaches it once: passed on from here.
  const child = spawn(node, [scriptFile, ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: process.platform !== 'win32',
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`quire: could not start ${node}: ${err.message}\n${tooOldMessage(version)}`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
  return true;
}
