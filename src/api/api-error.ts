// One error shape for every API response that is not a success:
//   {"error": {"status": 404, "code": "ARTICLE_NOT_FOUND", "message": "…"}}
export type ApiErrorCode =
  | 'API_KEY_MISSING'
  | 'API_KEY_INVALID'
  | 'ARTICLE_NOT_FOUND'
  | 'ROUTE_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'QUERY_INVALID'
  | 'BODY_TOO_LARGE'
  | 'CONTENT_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface ApiErrorBody {
  error: { status: number; code: ApiErrorCode; message: string };
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly headers: Record<string, string>;
  constructor(status: number, code: ApiErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  body(): string {
    const body: ApiErrorBody = { error: { status: this.status, code: this.code, message: this.message } };
    return JSON.stringify(body);
  }
}
