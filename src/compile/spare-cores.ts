// How many cores the rest of the machine leaves free right now, so the build starts a render worker
// only where one can run. A worker beyond the free cores gains no time and costs CPU: each worker
// loads its own pipeline, compiles the same parser functions again and keeps its own heap (on 2
// cores shared with other work, one worker used less CPU than two: docs/benchmarks-log.md, "render
// workers only for free cores"). Measured over a short window from the machine's CPU times and this
// process's own, not from the load average, which lags a minute behind (a build just finished would
// still count).
import os from 'node:os';

export interface CpuSample {
  /** Busy and total CPU time of the whole machine, in ms, summed over its CPUs. */
  machineBusyMs: number;
  machineTotalMs: number;
  /** CPU time of this process (all its threads), in ms. */
  ownMs: number;
  cpus: number;
}

export function sampleCpu(): CpuSample {
  let busy = 0;
  let total = 0;
  const cpus = os.cpus();
  for (const { times } of cpus) {
    const used = times.user + times.nice + times.sys + times.irq;
    busy += used;
    total += used + times.idle;
  }
  const own = process.cpuUsage();
  return { machineBusyMs: busy, machineTotalMs: total, ownMs: (own.user + own.system) / 1000, cpus: cpus.length };
}

/**
 * Cores other processes left idle between two samples, counted in whole cores (rounded: a core
 * others use less than half of counts as free). Null when the window is too short to say.
 */
export function spareCores(before: CpuSample, after: CpuSample): number | null {
  const total = after.machineTotalMs - before.machineTotalMs;
  if (after.cpus !== before.cpus || total <= 0) return null;
  const wallMs = total / after.cpus;
  if (wallMs < 50) return null;
  const busyCores = (after.machineBusyMs - before.machineBusyMs) / wallMs;
  const ownCores = (after.ownMs - before.ownMs) / wallMs;
  const othersCores = Math.max(0, busyCores - ownCores);
  return Math.max(0, Math.round(after.cpus - othersCores));
}
