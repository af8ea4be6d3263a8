// The inputs of a conformance check for one site, from Quire's state: the registered webhook's
// secret (sealed in the state store; never shown) and URL, or another URL to run it against
// (a staging receiver), and where the site's pages are. Shared by `quire conformance` and the
// MCP tool check_conformance.
// Pages are read where the receiver's {url} reply points; without one, on the origin of a URL
// given instead of the registered one (a staging deployment serves its own pages), else on
// site.yaml's `url`, at its `articlePath`.
import { DEFAULT_TIMEOUT_MS } from '../delivery/deliver.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import type { SafeClient } from '../net/safe-client.ts';
import { checkTargetUrl, type TargetErrorCode } from '../net/target-url.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import type { ConformanceReport } from './conformance/report.ts';
import { runConformance, type ConformanceDeps } from './conformance/run-conformance.ts';

export interface CheckConformanceInput {
  siteId: string;
  /** Another webhook URL than the registered one. */
  url?: string | undefined;
  /** The site's `url` and `articlePath` from the build, when there is one. */
  site: { url: string; articlePath: string } | null;
}

export type CheckConformanceResult =
  | { ok: true; report: ConformanceReport }
  | ({ ok: false } & Problem<Extract<CodeIn<'delivery-request'>, 'NO_WEBHOOK'> | TargetErrorCode>);

export interface CheckConformanceDeps {
  /** The delivery parts: the state store (the webhook), the delivery client, the clock, the time-out. */
  publishing: DeliveryDeps;
  /** Reads the receiver's pages: verify_integration's client. */
  pageClient: SafeClient;
  allowPrivate: boolean;
  settleMs?: number;
}

export async function checkConformance(
  deps: CheckConformanceDeps,
  input: CheckConformanceInput,
): Promise<CheckConformanceResult> {
  const { webhooks } = deps.publishing.store;
  const webhook = await webhooks.get(input.siteId);
  const secret = webhook ? await webhooks.secretOf(input.siteId) : null;
  if (!webhook || secret === null)
    return {
      ok: false,
      code: 'NO_WEBHOOK',
      message: `no webhook is saved for ${input.siteId}: the check signs its requests with its secret. Save one first (quire webhook set ${input.siteId} --url <https-url> --secret <secret>)`,
    };
  let url = webhook.url;
  if (input.url !== undefined) {
    const checked = checkTargetUrl(input.url.trim(), { allowPrivate: deps.allowPrivate });
    if (!checked.ok) return checked;
    url = checked.url.href;
  }
  const baseUrl = input.url !== undefined || !input.site ? new URL(url).origin : input.site.url.replace(/\/+$/, '');
  const { publishing } = deps;
  const conformance: ConformanceDeps = {
    webhookClient: publishing.client,
    pageClient: deps.pageClient,
    now: publishing.now,
    sleep: publishing.sleep,
    timeoutMs: publishing.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(deps.settleMs !== undefined ? { settleMs: deps.settleMs } : {}),
  };
  const report = await runConformance(conformance, {
    siteId: input.siteId,
    url,
    secret,
    extraEvents: webhook.extraEvents,
    layout: { baseUrl, articlePath: input.site?.articlePath ?? null },
  });
  return { ok: true, report };
}
