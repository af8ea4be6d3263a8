// The per-receiver-host cap of `quire worker --per-host <n>`: before each request a sender takes
// one of the host's n slots in the state store (shared by every sender of the fleet), waiting
// while all are held; released when the attempt ends. A slot's lease outlives the request
// (bounded by the time-out), so a sender that dies holds it no longer than that.
import type { StateStore } from '../store/state-store.ts';

export interface HostCap {
  /** Waits for a slot of `host` (at most until `giveUpAt`); the slot's release, or null when it waited too long. */
  enter(host: string, giveUpAt: number): Promise<(() => Promise<void>) | null>;
}

export function createHostCap(
  deps: { store: StateStore; now: () => number; sleep: (ms: number) => Promise<void> },
  opts: { perHost: number; owner: string; leaseMs: number; pollMs?: number; random?: () => number },
): HostCap {
  const random = opts.random ?? Math.random;
  return {
    async enter(host, giveUpAt) {
      for (;;) {
        const now = deps.now();
        const slot = await deps.store.hostSlots.take(host, opts.perHost, opts.owner, now, now + opts.leaseMs);
        if (slot !== null) return () => deps.store.hostSlots.release(host, slot, opts.owner);
        if (deps.now() >= giveUpAt) return null;
        // Jittered, so that waiting senders do not all ask at the same instant.
        await deps.sleep((opts.pollMs ?? 25) * (0.5 + random()));
      }
    },
  };
}

/** The host a delivery goes to (with its port), or null for a URL the attempt will refuse anyway. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
