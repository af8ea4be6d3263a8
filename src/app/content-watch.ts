// `quire dev`: the content folder watched, a rebuild after 80 ms of quiet; rebuilds run one at a
// time, and a change during one makes it run once more after it.
import path from 'node:path';
import chokidar from 'chokidar';
import type { App } from './app.ts';

/** `run` never twice at once: a call while it runs makes it run once more when it has finished. */
export function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await run();
      } while (again);
    })();
    await running;
    running = null;
  };
}

/** Calls `rebuild` after a change under the content folder; resolves once the watcher is ready. The App closes it. */
export async function watchContent(app: App, out: (line: string) => void, rebuild: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | null = null;
  const contentDir = app.content().dir;
  // Links are never followed: one in the content tree is a problem the build reports, not more to watch.
  const watcher = chokidar.watch(contentDir, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (p) => /(^|[/\\])\./.test(p.slice(contentDir.length)),
  });
  app.onClose(() => {
    if (timer) clearTimeout(timer);
    return watcher.close();
  });
  watcher.on('all', () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), 80);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  out(`Watching ${path.relative(process.cwd(), contentDir) || '.'} for changes.`);
}
