// One cap on every request body the server reads (admin sign-in and forms, push hooks, and any
// route that takes a body later): a declared Content-Length over the cap is answered 413 before a
// byte of the body is read; a chunked body is counted as it arrives and refused once it passes
// the cap. The connection is closed after the 413, so the rest of the body is not read either.
// Registered for the methods that carry bodies only (`BODY_METHODS`): a GET does not pass
// through it.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import { ApiError } from '../api-error.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../../config/defaults.ts';

/** Methods whose requests may carry a body a handler reads. */
export const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export const bodyLimit = ({ maxBytes = DEFAULT_MAX_BODY_BYTES }: { maxBytes?: number } = {}): MiddlewareHandler => {
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    throw new RangeError(`maxBytes must be a whole number of at least 1, not ${maxBytes}`);
  const tooLarge = () => {
    throw new ApiError('BODY_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, { connection: 'close' });
  };
  const limit = honoBodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return function bodyLimit(c, next) {
    return limit(c, next);
  };
};
