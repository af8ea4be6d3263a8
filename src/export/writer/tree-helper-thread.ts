// The tree helper's thread (tree-helper.ts starts it): file-system chores of a build that need no
// JavaScript state, so that they overlap the build's own work. Only node:fs and node:path (with the
// export's file names and isMissingFile).
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { MANIFEST_FILE } from '../layout.ts';
import type { TreeHelperJob, TreeHelperReply } from './tree-helper.ts';
import { isMissingFile } from '../../problems/problem.ts';

/**
 * Every file of `from` (but its manifest) linked at the same place under `to`; a file already
 * there was written by the build and wins. Copies where links are not allowed.
 */
function linkTree(from: string, to: string): string[] {
  const linked: string[] = [];
  const walk = (rel: string) => {
    const dir = rel ? path.join(from, rel) : from;
    fs.mkdirSync(rel ? path.join(to, rel) : to, { recursive: true });
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(name);
        continue;
      }
      if (!rel && entry.name === MANIFEST_FILE) continue;
      const source = path.join(from, name);
      const target = path.join(to, name);
      try {
        fs.linkSync(source, target);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (isMissingFile(err)) continue; // gone from the old tree meanwhile
        fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
      }
      linked.push(name);
    }
  };
  walk('');
  return linked;
}

const port = parentPort!;
port.on('message', (job: TreeHelperJob) => {
  const reply = (r: TreeHelperReply) => port.postMessage(r);
  try {
    if (job.type === 'link') reply({ id: job.id, files: linkTree(job.from, job.to) });
    else if (job.type === 'remove') {
      for (const dir of job.dirs) fs.rmSync(dir, { recursive: true, force: true });
      reply({ id: job.id });
    } else process.exit(0);
  } catch (err) {
    reply({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  }
});
