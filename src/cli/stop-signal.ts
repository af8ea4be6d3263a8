// A process that runs until it is told to stop: SIGINT (Ctrl-C) or SIGTERM (a service manager).

/** Resolves with the first SIGINT or SIGTERM this process gets. */
export function stopSignal(): Promise<'SIGINT' | 'SIGTERM'> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
