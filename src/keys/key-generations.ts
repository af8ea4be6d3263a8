// Per-site key generations in the state dir (keys.json, mode 0600). Absent means generation 1.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyGenerations } from './api-keys.ts';

export interface KeyGenerationFile extends KeyGenerations {
  rotate(siteId: string): number;
  /** Re-reads the file when it changed on disk (a rotation by another process). */
  refresh(): boolean;
}

export function openKeyGenerations(stateDir: string): KeyGenerationFile {
  const file = path.join(stateDir, 'keys.json');
  let data: Record<string, number> = {};
  let stamp = '';
  const stampOf = () => {
    try {
      const s = fs.statSync(file);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'none';
    }
  };
  const load = () => {
    stamp = stampOf();
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      data = {};
    }
  };
  load();
  return {
    generationOf: (siteId) => data[siteId] ?? 1,
    rotate(siteId) {
      load();
      data[siteId] = (data[siteId] ?? 1) + 1;
      fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
      fs.renameSync(tmp, file);
      stamp = stampOf();
      return data[siteId]!;
    },
    refresh() {
      if (stampOf() === stamp) return false;
      load();
      return true;
    },
  };
}
