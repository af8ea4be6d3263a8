// One cap on every request body the server reads (admin sign-in and forms, and any route that
// takes a body later): a declared Content-Length over the cap is answered 413 before a byte of
// the body is read; a chunked body is counted as it arrives and refused once it passes the cap.
// The connection is closed after the 413, so the rest of the body is not read either.
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './api-error.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../config/defaults.ts';
/** Methods whose requests may carry a body a handler reads. */
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Registers the cap on every path of `app` (before any route that reads a body is added). */
export function limitRequestBodies(app: Hono, maxBytes: number = DEFAULT_MAX_BODY_BYTES): void {
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError(`maxBytes must be a whole number of at least 1, not ${maxBytes}`);
  const tooLarge = () => {
    throw new ApiError('BODY_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, { connection: 'close' });
  };
  // Only the methods that carry bodies: GET routes keep their single-handler fast path.
  app.on(BODY_METHODS, '*', bodyLimit({ maxSize: maxBytes, onError: tooLarge }));
}
