// What a failed request to S3-compatible storage means for `quire deploy`, in Quire's words and
// with a code: the bucket missing, no credentials, credentials refused, the endpoint unreachable;
// any other answer of the service with its own code. Told apart by the SDK error's name, status
// and network code (not by class: this module does not load the SDK).
import { ProblemError } from '../problems/problem.ts';

export type StorageProblemCode =
  | 'DEPLOY_BUCKET_NOT_FOUND'
  | 'DEPLOY_CREDENTIALS_MISSING'
  | 'DEPLOY_ACCESS_DENIED'
  | 'DEPLOY_STORAGE_UNREACHABLE'
  | 'DEPLOY_STORAGE_FAILED';

export interface StorageTarget {
  bucket: string;
  /** null: AWS S3. */
  endpoint: string | null;
  region: string;
}

interface SdkError {
  name?: unknown;
  message?: unknown;
  /** Node's network error code (ECONNREFUSED, ENOTFOUND, a TLS failure…). */
  code?: unknown;
  /** The service's error code, when it answered one. */
  Code?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The problem `err` is, or `err` itself when it is no failure of the storage (a fault of Quire's). */
export function storageProblem(err: unknown, target: StorageTarget): unknown {
  if (err instanceof ProblemError || typeof err !== 'object' || err === null) return err;
  const e = err as SdkError;
  const name = typeof e.name === 'string' ? e.name : '';
  const said = typeof e.message === 'string' ? e.message : String(err);
  const status = e.$metadata?.httpStatusCode;
  const service = target.endpoint ?? `AWS S3 (region ${target.region})`;
  const problem = (code: StorageProblemCode, message: string) => new ProblemError(code, message, { cause: err });
  if (name === 'CredentialsProviderError') {
    return problem(
      'DEPLOY_CREDENTIALS_MISSING',
      `no credentials to sign the requests to ${service} with: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (for R2: the access key ID and secret of an R2 API token), or AWS_PROFILE`,
    );
  }
  if (name === 'NoSuchBucket' || e.Code === 'NoSuchBucket') {
    return problem(
      'DEPLOY_BUCKET_NOT_FOUND',
      `the bucket "${target.bucket}" does not exist at ${service}: create it, or correct QUIRE_S3_BUCKET${target.endpoint ? ' and QUIRE_S3_ENDPOINT' : ' (and set QUIRE_S3_ENDPOINT for a service other than AWS S3)'}`,
    );
  }
  if (status === 401 || status === 403) {
    return problem(
      'DEPLOY_ACCESS_DENIED',
      `${service} refused the request to the bucket "${target.bucket}" (${status} ${name || 'refused'}: ${said}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and that the key may list, read, write and delete objects in the bucket`,
    );
  }
  if (status === undefined && (typeof e.code === 'string' || name === 'TimeoutError')) {
    return problem(
      'DEPLOY_STORAGE_UNREACHABLE',
      `${service} cannot be reached (${said}): ${target.endpoint ? 'check QUIRE_S3_ENDPOINT' : 'check QUIRE_S3_REGION (and QUIRE_S3_ENDPOINT for a service other than AWS S3)'} and the network`,
    );
  }
  if (status !== undefined) {
    return problem(
      'DEPLOY_STORAGE_FAILED',
      `${service} answered ${status} ${name || 'an error'} for the bucket "${target.bucket}": ${said}`,
    );
  }
  return err;
}
