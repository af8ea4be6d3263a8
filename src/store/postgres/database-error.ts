// The PostgreSQL state database cannot be used: unreachable, login refused, no such database.
import { ProblemError } from '../../problems/problem.ts';

export type StateDatabaseCode = 'DATABASE_UNREACHABLE' | 'DATABASE_LOGIN_FAILED' | 'DATABASE_NOT_FOUND';

export class StateDatabaseError extends ProblemError<StateDatabaseCode> {
  constructor(code: StateDatabaseCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StateDatabaseError';
  }
}
