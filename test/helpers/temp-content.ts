// Content trees in temp dirs, optionally as real git repos with dated commits.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TempProject {
  root: string;
  contentDir: string;
  distDir: string;
  stateDir: string;
  write(rel: string, text: string | Buffer): string;
  remove(rel: string): void;
  git(...args: string[]): string;
  /** Commits everything with the given ISO date as author and committer date. */
  commit(message: string, isoDate: string): string;
  cleanup(): void;
}

export function createTempProject(opts: { git?: boolean } = {}): TempProject {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  const contentDir = path.join(root, 'content');
  fs.mkdirSync(contentDir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });
  if (opts.git) git('init', '-q', '-b', 'main');
  return {
    root,
    contentDir,
    distDir: path.join(root, 'dist'),
    stateDir: path.join(root, '.quire'),
    write(rel, text) {
      const file = path.join(contentDir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    },
    remove(rel) {
      fs.rmSync(path.join(contentDir, rel), { recursive: true, force: true });
    },
    git,
    commit(message, isoDate) {
      git('add', '-A');
      execFileSync('git', ['-C', root, 'commit', '-q', '--allow-empty', '-m', message], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Test',
          GIT_AUTHOR_EMAIL: 't@example.com',
          GIT_COMMITTER_NAME: 'Test',
          GIT_COMMITTER_EMAIL: 't@example.com',
          GIT_AUTHOR_DATE: isoDate,
          GIT_COMMITTER_DATE: isoDate,
        },
      });
      return git('rev-parse', 'HEAD').trim();
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Front matter + body. Values are written as given (YAML). */
export function article(fields: Record<string, string>, body = 'Some text.\n'): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join('\n')}\n---\n\n${body}`;
}

export function writeSite(
  p: TempProject,
  id: string,
  yaml = `name: ${id}\nlang: en\nurl: https://${id}.example.com\n`,
): void {
  p.write(`${id}/site.yaml`, yaml);
}

/** The settings that point `quire` at the project's content, dist and state folders. */
export function projectFolders(p: TempProject): Record<string, string> {
  return { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir };
}
