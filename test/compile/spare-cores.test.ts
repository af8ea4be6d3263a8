import { describe, expect, it } from 'vitest';
import { sampleCpu, spareCores, type CpuSample } from '../../src/compile/spare-cores.ts';

const at = (machineBusyMs: number, machineTotalMs: number, ownMs: number, cpus = 2): CpuSample => ({
  machineBusyMs,
  machineTotalMs,
  ownMs,
  cpus,
});

describe('spare cores', () => {
  it('counts the cores other processes leave idle, not the ones this process uses', () => {
    // 2 CPUs over 250 ms: 500 ms of CPU time in all.
    expect(spareCores(at(0, 0, 0), at(10, 500, 0))).toBe(2); // idle machine
    expect(spareCores(at(0, 0, 0), at(250, 500, 250))).toBe(2); // busy with this build alone
    expect(spareCores(at(0, 0, 0), at(400, 500, 150))).toBe(1); // others take one core
    expect(spareCores(at(0, 0, 0), at(500, 500, 50))).toBe(0); // others take both
  });

  it('rounds: others using less than half a core leave it free', () => {
    expect(spareCores(at(0, 0, 0), at(100, 500, 0))).toBe(2); // 0.4 core
    expect(spareCores(at(0, 0, 0), at(150, 500, 0))).toBe(1); // 0.6 core
  });

  it('says nothing from a window too short, or from samples of different machines', () => {
    expect(spareCores(at(0, 0, 0), at(10, 60, 0))).toBeNull();
    expect(spareCores(at(0, 0, 0, 2), at(10, 500, 0, 4))).toBeNull();
  });

  it('samples this machine', () => {
    const s = sampleCpu();
    expect(s.cpus).toBeGreaterThan(0);
    expect(s.machineTotalMs).toBeGreaterThanOrEqual(s.machineBusyMs);
    expect(s.ownMs).toBeGreaterThan(0);
  });
});
