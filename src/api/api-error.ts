// One error shape for every API response that is not a success:
//   {"error": {"status": 404, "code": "ARTICLE_NOT_FOUND", "message": "…"}}
// The code comes from the problem catalogue, and the status with it.
import { CATALOGUE, type CodeIn } from '../problems/catalogue.ts';
import { ProblemError } from '../problems/problem.ts';

export type ApiErrorCode = CodeIn<'api'>;

export interface ApiErrorBody {
  error: { status: number; code: ApiErrorCode; message: string };
}

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
    const body: ApiErrorBody = { error: { status: this.status, code: this.code, message: this.message } };
    return JSON.stringify(body);
  }
}
