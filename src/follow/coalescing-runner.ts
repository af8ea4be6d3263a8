// Runs one job at a time however often it is asked: a request while the job runs queues one more
// run (a burst of pushes costs at most one build running and one waiting), never a pile.

export interface CoalescingRunner {
  /** Asks for a run; resolves when the run that covers this request has finished. */
  trigger(): Promise<void>;
  /** Whether a run is in progress. */
  busy(): boolean;
  /** Resolves once nothing runs (a queued run is dropped). */
  stop(): Promise<void>;
}

export function createCoalescingRunner(job: () => Promise<void>): CoalescingRunner {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  let stopped = false;
  const start = (): Promise<void> => {
    running = job()
      .catch(() => {}) // the job reports its own failures
      .finally(() => {
        running = null;
      });
    return running;
  };
  return {
    trigger() {
      if (stopped) return Promise.resolve();
      if (!running) return start();
      // One run waits behind the current one and serves every request made meanwhile.
      queued ??= running.then(() => {
        queued = null;
        return stopped ? undefined : start();
      });
      return queued;
    },
    busy: () => running !== null,
    async stop() {
      stopped = true;
      while (running) await running;
    },
  };
}
