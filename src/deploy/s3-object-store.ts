// The ObjectStore of an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO…) through the official
// AWS SDK. Credentials come as the SDK reads them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// a profile, a role); Quire passes only the bucket, the endpoint and the region.
import {
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ObjectStore, StoredObject } from './object-store.ts';
import { ProblemError } from '../problems/problem.ts';
import { storageProblem } from './storage-problem.ts';

export interface S3Settings {
  bucket: string;
  /** Key prefix inside the bucket, without a trailing `/` ('' for none). */
  prefix: string;
  /** Another S3-compatible service's endpoint (R2, a local server); null: AWS S3. */
  endpoint: string | null;
  region: string;
}

export function openS3Store(settings: S3Settings): ObjectStore & { close(): void } {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    // Checksums only where the API requires them: S3-compatible services differ in the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const base = settings.prefix ? `${settings.prefix}/` : '';
  // A missing bucket is a 404 too, but not "no such object": told, not taken for an empty store.
  const notThere = (err: unknown) =>
    (err instanceof NoSuchKey ||
      err instanceof NotFound ||
      (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) &&
    (err as Error).name !== 'NoSuchBucket';
  // Every failure of the service or the network leaves here as a problem with a code and a fix.
  const problem = (err: unknown) => storageProblem(err, settings);
  return {
    where: `s3://${Bucket}/${base}`,
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: base + key }));
        return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      } catch (err) {
        if (notThere(err)) return null;
        throw problem(err);
      }
    },
    async sizeOf(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket, Key: base + key }))).ContentLength ?? 0;
      } catch (err) {
        if (notThere(err)) return null;
        throw problem(err);
      }
    },
    async *list(prefix): AsyncIterable<StoredObject> {
      // Only the paginator throws in here: a consumer that stops early returns, it does not throw.
      try {
        for await (const page of paginateListObjectsV2({ client, pageSize: 1000 }, { Bucket, Prefix: base + prefix })) {
          for (const o of page.Contents ?? []) {
            if (o.Key)
              yield { key: o.Key.slice(base.length), size: o.Size ?? 0, modifiedMs: o.LastModified?.getTime() };
          }
        }
      } catch (err) {
        throw problem(err);
      }
    },
    async put(key, bytes, meta) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: base + key,
            Body: bytes,
            ContentType: meta.contentType,
            CacheControl: meta.cacheControl,
            ContentLength: bytes.length,
          }),
        );
      } catch (err) {
        throw problem(err);
      }
    },
    async delete(keys) {
      if (!keys.length) return;
      let out: DeleteObjectsCommandOutput;
      try {
        out = await client.send(
          new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.map((k) => ({ Key: base + k })), Quiet: true } }),
        );
      } catch (err) {
        throw problem(err);
      }
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length)
        throw new ProblemError(
          'DEPLOY_STORAGE_FAILED',
          `could not delete ${failed.length} object(s) from s3://${Bucket}/${base}: ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message ?? ''}`.trim(),
        );
    },
    close: () => client.destroy(),
  };
}
