// For site owners on edge runtimes and Workers (`quire/receiver/web`): the same checks as
// verify-webhook.ts, with Web Crypto (`crypto.subtle`) and no Node built-in, so they run in
// Next.js edge route handlers, Cloudflare Workers, Deno, Bun and browsers. Web Crypto is
// asynchronous, so both functions return promises; their results are exactly the Node variant's
// (both run verify-steps.ts, and the tests hold them to the same vectors).
import {
  bytesOf,
  previewTokenSteps,
  webhookSteps,
  type CryptoQuestion,
  type HeaderSource,
  type PreviewTokenExpectation,
  type PreviewTokenResult,
  type Steps,
  type VerifyOptions,
  type VerifyResult,
} from './verify-steps.ts';

export type {
  HeaderSource,
  PreviewTokenExpectation,
  PreviewTokenResult,
  QuireWebhookArticle,
  QuireWebhookArticleRef,
  QuireWebhookPayload,
  VerifyOptions,
  VerifyResult,
} from './verify-steps.ts';

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

// Web Crypto wants ArrayBuffer-backed views; a copy also detaches from a caller's shared buffer.
const own = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

function hmacKey(key: Uint8Array, usages: ('sign' | 'verify')[]) {
  return crypto.subtle.importKey('raw', own(key), HMAC, false, usages);
}

/**
 * HMAC verify is Web Crypto's constant-time comparison (there is no timingSafeEqual): the MAC
 * is checked with `subtle.verify`, and two byte strings are compared by verifying the one's MAC
 * under a throwaway key against the other.
 */
async function answer(question: CryptoQuestion): Promise<boolean> {
  if (question.kind === 'hmac-is') {
    return crypto.subtle.verify(HMAC, await hmacKey(question.key, ['verify']), own(question.mac), own(question.data));
  }
  if (question.a.length !== question.b.length) return false; // a length difference is not secret (the format is public)
  const key = await hmacKey(crypto.getRandomValues(new Uint8Array(32)), ['sign', 'verify']);
  return crypto.subtle.verify(HMAC, key, await crypto.subtle.sign(HMAC, key, own(question.a)), own(question.b));
}

async function run<Result>(steps: Steps<Result>): Promise<Result> {
  let step = steps.next();
  while (!step.done) step = steps.next(await answer(step.value));
  return step.value;
}

/** See webhookSteps (verify-steps.ts) for what is accepted and why. */
export function verifyWebhook(
  rawBody: Uint8Array | ArrayBuffer | string,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  return run(webhookSteps(bytesOf(rawBody), headers, secret, options));
}

/** See previewTokenSteps (verify-steps.ts): a preview link's token, for this site and article, unexpired. */
export async function verifyPreviewToken(
  token: string,
  previewKey: string,
  expected: PreviewTokenExpectation,
): Promise<PreviewTokenResult> {
  return run(previewTokenSteps(token, previewKey, expected));
}
