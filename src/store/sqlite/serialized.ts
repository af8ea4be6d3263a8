// better-sqlite3 is synchronous and the store's interface is not: each SQLite part is written
// against the synchronous form of its interface and wrapped here. A transaction that awaits
// holds the one connection between its statements, so every other operation of the process
// waits for it to end (instead of landing inside it); when nothing holds the connection, an
// operation runs at once, as a plain call does, and only its result is wrapped in a Promise.
import type { LockResult } from '../records.ts';

/** The interface `T` with every Promise-returning method made synchronous. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

export type SyncLockResult = Exclude<LockResult, { acquired: true }> | { acquired: true; release: () => void };

/** A first-come, first-served hold on the connection. */
export class ConnectionQueue {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** Runs `op` (synchronous) now if the connection is free, else after those holding or waiting for it. */
  run<R>(op: () => R): Promise<R> {
    if (!this.held) return settled(op);
    return this.exclusive(async () => op());
  }

  /** Runs `work` holding the connection from its start to its end, awaits included. */
  async exclusive<R>(work: () => Promise<R>): Promise<R> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** `op`'s result or error as a Promise. */
export function settled<R>(op: () => R): Promise<R> {
  try {
    return Promise.resolve(op());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The asynchronous interface over a synchronous part: each method runs through `run`. */
export function promised<T extends object>(part: Synchronous<T>, run: <R>(op: () => R) => Promise<R>): T {
  const methods = part as unknown as Record<string, (...args: unknown[]) => unknown>;
  const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of Object.keys(methods)) {
    const method = methods[name]!;
    wrapped[name] = (...args) => run(() => method.apply(part, args));
  }
  return wrapped as unknown as T;
}
