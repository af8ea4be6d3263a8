// Runs a job at each instant a schedule changes what is served (a go-live, an expiry), also when
// that instant is weeks away (setTimeout holds at most ~24.8 days) or the job cannot run yet.
export interface ChangeTimer {
  /** The schedule changed (a new build): look again for the next instant. */
  reschedule(): void;
  stop(): void;
}

export interface ChangeTimerOptions {
  /** The next instant after `now` at which something changes, or null for none. */
  nextChange: (nowMs: number) => number | null;
  /** Runs at (or just after) each instant, and once at start; 'busy' asks for a retry. Never two at once. */
  run: (nowMs: number) => 'done' | 'busy' | Promise<'done' | 'busy'>;
  now?: () => number;
  retryMs?: number;
  onError?: (err: unknown) => void;
}

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function startChangeTimer(opts: ChangeTimerOptions): ChangeTimer {
  const now = opts.now ?? Date.now;
  const retryMs = opts.retryMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let running = false;
  let runAgain = false;

  const wait = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = stopped ? null : setTimeout(fire, Math.max(0, Math.min(ms, MAX_TIMEOUT_MS)));
    timer?.unref();
  };
  const arm = () => {
    const at = opts.nextChange(now());
    if (timer) clearTimeout(timer);
    timer = null;
    // A few ms late rather than early: at the instant itself the change has happened.
    if (at !== null) wait(at - now() + 5);
  };
  async function fire() {
    timer = null;
    // Fired again while a run awaits: once it ends, run once more instead of alongside it.
    if (running) {
      runAgain = true;
      return;
    }
    running = true;
    let outcome: 'done' | 'busy';
    try {
      outcome = await opts.run(now());
    } catch (err) {
      opts.onError?.(err);
      outcome = 'busy';
    } finally {
      running = false;
    }
    if (runAgain) {
      runAgain = false;
      wait(0);
    } else if (outcome === 'busy') wait(retryMs);
    else arm();
  }
  // Once at start: what came due while no server ran (a restart across a go-live) is sent now.
  wait(0);
  return {
    reschedule: () => {
      if (!stopped) wait(0);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
