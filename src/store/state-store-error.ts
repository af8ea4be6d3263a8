// The state cannot be used as it is (unreadable, damaged, foreign, from a newer Quire, sealed under
// another server secret): named with what to do, never taken for empty state.
import { ProblemError } from '../problems/problem.ts';

export class StateStoreError extends ProblemError<'STATE_STORE_UNREADABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STATE_STORE_UNREADABLE', message, options);
    this.name = 'StateStoreError';
  }
}
