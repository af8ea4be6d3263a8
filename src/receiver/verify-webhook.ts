// For site owners, on Node (`quire/receiver`): check that a request really comes from Quire
// before trusting its body (verifyWebhook), and that a draft preview link was made by Quire
// (verifyPreviewToken). The checks themselves are in verify-steps.ts, shared with the Web Crypto
// variant (verify-webhook-web.ts, `quire/receiver/web`); this module answers their crypto
// questions with node:crypto, synchronously.
//
// Verify the RAW body bytes: JSON.parse + JSON.stringify changes the bytes (spacing, escapes,
// key order) and the signature no longer matches. See docs/webhooks.md, "Receiving webhooks".
import { createHmac, timingSafeEqual } from 'node:crypto';
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

/** Constant time for equal lengths; a length difference is not secret (the format is public). */
function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function answer(question: CryptoQuestion): boolean {
  if (question.kind === 'equal') return safeEqual(question.a, question.b);
  return safeEqual(createHmac('sha256', question.key).update(question.data).digest(), question.mac);
}

function run<Result>(steps: Steps<Result>): Result {
  let step = steps.next();
  while (!step.done) step = steps.next(answer(step.value));
  return step.value;
}

/** See webhookSteps (verify-steps.ts) for what is accepted and why. */
export function verifyWebhook(
  rawBody: Uint8Array | ArrayBuffer | string,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  return run(webhookSteps(bytesOf(rawBody), headers, secret, options));
}

/** See previewTokenSteps (verify-steps.ts): a preview link's token, for this site and article, unexpired. */
export function verifyPreviewToken(
  token: string,
  previewKey: string,
  expected: PreviewTokenExpectation,
): PreviewTokenResult {
  return run(previewTokenSteps(token, previewKey, expected));
}
