// File-system chores of a build that need no JavaScript state, run on a helper thread
// (tree-helper-thread.ts) so they overlap the build's own work instead of adding to it: linking the
// current dist/ into the new tree and deleting replaced trees (docs/benchmarks-log.md, "figures
// first recorded in code comments"). It starts as `./tree-helper-entry.mjs` next to this module:
// from the sources a loader for the TypeScript thread, in the CLI bundle the bundled thread itself.
import { Worker } from 'node:worker_threads';

/** What the helper thread is asked to do. */
export type TreeHelperJob =
  | { type: 'link'; id: number; from: string; to: string }
  | { type: 'remove'; id: number; dirs: string[] }
  | { type: 'exit'; id: number };

/** Its answer to a job: the files linked, or why it failed. */
export interface TreeHelperReply {
  id: number;
  files?: string[];
  error?: string;
}

/** A job as sent, before it is numbered. */
type NewJob<J = TreeHelperJob> = J extends unknown ? Omit<J, 'id'> : never;

export interface TreeHelper {
  /**
   * Links every file of `from` into `to` (made as needed); resolves with their relative paths.
   * Keeps the process alive until done.
   */
  linkTree(from: string, to: string): Promise<string[]>;
  /**
   * Deletes whole trees, after the jobs before it. With keepAlive false, exit may cut it short:
   * the next build sweeps what is left.
   */
  remove(dirs: string[], keepAlive: boolean): Promise<void>;
  /** Ends the helper once the jobs sent so far are done. */
  finish(): void;
  /** Settles when the helper has ended (its jobs done); keeps the process alive until then. */
  waitUntilEnded(): Promise<void>;
  /** Ends it now. */
  terminate(): Promise<void>;
}

export function startTreeHelper(): TreeHelper {
  // execArgv: [] so that flags of this process (an --input-type, a loader) do not apply to the helper.
  const worker = new Worker(new URL('./tree-helper-entry.mjs', import.meta.url), { execArgv: [] });
  worker.unref();
  const pending = new Map<
    number,
    { resolve: (r: TreeHelperReply) => void; reject: (e: Error) => void; keepAlive: boolean }
  >();
  let nextId = 0;
  let failure: Error | null = null;
  let finishing = false;
  let awaited = false; // someone waits for the end: the process must not exit before it
  const holdProcess = () => {
    if (awaited || [...pending.values()].some((w) => w.keepAlive)) worker.ref();
    else worker.unref();
  };
  const settle = (
    id: number,
    outcome: (w: { resolve: (r: TreeHelperReply) => void; reject: (e: Error) => void }) => void,
  ) => {
    const waiter = pending.get(id);
    pending.delete(id);
    holdProcess();
    if (waiter) outcome(waiter);
  };
  worker.on('message', (reply: TreeHelperReply) =>
    settle(reply.id, (w) =>
      reply.error !== undefined ? w.reject(new Error(`build helper: ${reply.error}`)) : w.resolve(reply),
    ),
  );
  const fail = (err: Error) => {
    failure = err;
    for (const id of [...pending.keys()]) settle(id, (w) => w.reject(err));
  };
  worker.on('error', fail);
  const ended = new Promise<void>((resolve) =>
    worker.on('exit', () => {
      fail(failure ?? new Error('build helper exited'));
      resolve();
    }),
  );
  const send = (job: NewJob, keepAlive: boolean): Promise<TreeHelperReply> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<TreeHelperReply>((resolve, reject) => {
      pending.set(id, { resolve, reject, keepAlive });
      holdProcess();
      worker.postMessage({ ...job, id } as TreeHelperJob);
    });
  };
  return {
    linkTree: async (from, to) => (await send({ type: 'link', from, to }, true)).files ?? [],
    remove: async (dirs, keepAlive) => {
      if (dirs.length) await send({ type: 'remove', dirs }, keepAlive);
    },
    finish: () => {
      if (!failure && !finishing) worker.postMessage({ type: 'exit', id: -1 } satisfies TreeHelperJob);
      finishing = true;
    },
    waitUntilEnded: () => {
      awaited = true;
      holdProcess();
      return ended;
    },
    terminate: async () => {
      // A worker being stopped does not hold the process open (ref() or not), so with nothing
      // else pending the process would exit right here, silently, in the middle of a build.
      const holdOpen = setInterval(() => {}, 60_000);
      try {
        await worker.terminate();
      } finally {
        clearInterval(holdOpen);
      }
    },
  };
}
