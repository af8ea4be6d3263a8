// Registering a site's webhook, shared by the CLI, the web app and the MCP tools: the same
// checks everywhere (https, no credentials, a public host, a long enough secret).
import { randomBytes } from 'node:crypto';
import { checkTargetUrl } from '../net/target-url.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import type { SafeClient } from '../net/safe-client.ts';
import type { StateStore, WebhookRecord } from '../store/state-store.ts';
import { queueMissedEvents } from './missed-events.ts';

export const MIN_SECRET_LENGTH = 24;
export const MAX_SECRET_LENGTH = 512;

export type WebhookInputError = { ok: false; field: 'url' | 'secret' } & Problem<CodeIn<'webhook-input'>>;

/** `whsec_` + 32 random bytes in base64: also what Standard Webhooks libraries expect by default. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function checkSecret(secret: string): WebhookInputError | null {
  const fail = (code: CodeIn<'webhook-input'>, message: string): WebhookInputError => ({
    ok: false,
    field: 'secret',
    code,
    message,
  });
  if (secret.length < MIN_SECRET_LENGTH)
    return fail(
      'SECRET_TOO_SHORT',
      `the secret must be at least ${MIN_SECRET_LENGTH} characters (it has ${secret.length}); generate one`,
    );
  if (secret.length > MAX_SECRET_LENGTH)
    return fail('SECRET_TOO_LONG', `the secret must be at most ${MAX_SECRET_LENGTH} characters`);
  // It travels in the Authorization header: visible ASCII only.
  if (!/^[\x21-\x7e]+$/.test(secret))
    return fail('SECRET_INVALID', 'the secret may contain only visible ASCII characters (no spaces)');
  if (secret.startsWith('whsec_') && Buffer.from(secret.slice(6), 'base64').length < MIN_SECRET_LENGTH) {
    return fail('SECRET_INVALID', 'a whsec_ secret must carry at least 24 bytes of base64 after the prefix');
  }
  return null;
}

/** Checks a webhook URL as it would be used: https, no credentials, every address public. */
export async function checkWebhookUrl(
  client: SafeClient,
  unsafeUrl: string,
  allowPrivate: boolean,
): Promise<{ ok: true; url: string } | WebhookInputError> {
  const checked = checkTargetUrl(unsafeUrl.trim(), { allowPrivate });
  if (!checked.ok)
    return {
      ok: false,
      field: 'url',
      code: checked.code,
      message: checked.code === 'URL_HOST_NOT_PUBLIC' ? withLocalHint(checked.message) : checked.message,
    };
  if (!allowPrivate) {
    const resolved = await client.resolvePublic(checked.url.hostname);
    if (!resolved.ok)
      return resolved.kind === 'dns'
        ? { ok: false, field: 'url', code: 'URL_HOST_UNRESOLVED', message: resolved.message }
        : { ok: false, field: 'url', code: 'URL_HOST_NOT_PUBLIC', message: withLocalHint(resolved.message) };
  }
  return { ok: true, url: checked.url.href };
}

// Refused here is most often a receiver under test on the developer's machine: the way to allow it.
const withLocalHint = (message: string) =>
  `${message} (to test with a receiver on this machine or network, run Quire with QUIRE_ALLOW_PRIVATE_TARGETS=1)`;

/** A disabled webhook that saving re-enabled: why it was off, and how many missed events were queued again. */
export interface ResumedWebhook {
  reason: string;
  missed: number;
}

export interface WebhookInput {
  url: string;
  /** Omitted when changing only the URL of an existing registration. */
  secret?: string;
  extraEvents?: boolean;
}

/** Every problem with the input at once (URL and secret), so a form can mark each field. */
export type WebhookSaveFailure = { ok: false; problems: WebhookInputError[] };

export async function saveWebhook(
  deps: { store: StateStore; client: SafeClient; allowPrivate: boolean; now: () => number },
  siteId: string,
  input: WebhookInput,
): Promise<{ ok: true; webhook: WebhookRecord; resumed: ResumedWebhook | null } | WebhookSaveFailure> {
  const problems: WebhookInputError[] = [];
  if (input.secret !== undefined) {
    const bad = checkSecret(input.secret);
    if (bad) problems.push(bad);
  } else if (!(await deps.store.webhooks.get(siteId))) {
    problems.push({
      ok: false,
      field: 'secret',
      code: 'SECRET_REQUIRED',
      message: 'a secret is required: enter one or generate one',
    });
  }
  const url = await checkWebhookUrl(deps.client, input.url, deps.allowPrivate);
  if (!url.ok) problems.unshift(url);
  if (!url.ok || problems.length) return { ok: false, problems };
  const now = deps.now();
  // Saving re-enables a webhook a 410 disabled: in the same transaction, what its receiver
  // missed meanwhile is queued again, so re-enabling resumes where the receiver left off.
  return deps.store.transaction(async (tx) => {
    const before = await tx.webhooks.get(siteId);
    const webhook = await tx.webhooks.save(
      siteId,
      {
        url: url.url,
        ...(input.secret !== undefined ? { secret: input.secret } : {}),
        ...(input.extraEvents !== undefined ? { extraEvents: input.extraEvents } : {}),
      },
      now,
    );
    const resumed = before?.disabledAt
      ? { reason: before.disabledReason ?? 'disabled', missed: await queueMissedEvents(tx, siteId, now) }
      : null;
    return { ok: true as const, webhook, resumed };
  });
}
