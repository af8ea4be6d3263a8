// Every API response that is not a success, in the contract's one error shape
// (src/contract/error.ts): {"error": {"status": 404, "code": "ARTICLE_NOT_FOUND", "message": "…"}}
// The code comes from the problem catalogue, and the status with it.
import type { ErrorResponse } from '../contract/error.ts';
import type { ApiErrorCode } from '../contract/error-codes.ts';
import { CATALOGUE } from '../problems/catalogue.ts';
import { ProblemError } from '../problems/problem.ts';

export class ApiError extends ProblemError<ApiErrorCode> {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: ApiErrorCode, message: string, headers: Record<string, string> = {}) {
    super(code, message);
    this.name = 'ApiError';
    this.status = CATALOGUE[code].status;
    this.headers = headers;
  }

  body(): string {
    const body: ErrorResponse = { error: { status: this.status, code: this.code, message: this.message } };
    return JSON.stringify(body);
  }
}
