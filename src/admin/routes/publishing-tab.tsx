// A site's Publishing tab: its API and preview keys (rotated on a confirmed form), its webhook
// (saved, removed, a secret generated and shown once) and Test connection.
import type { Context, Hono } from 'hono';
import { previewKeyName } from '../../keys/api-keys.ts';
import { testWebhook } from '../../delivery/test-connection.ts';
import { generateWebhookSecret, saveWebhook } from '../../publish/webhook-settings.ts';
import type { AdminEnv } from '../admin-deps.ts';
import type { AdminPages } from '../admin-pages.tsx';
import { createOneTimeFlash } from '../one-time-flash.ts';
import { PublishingTab, type PublishingView, type WebhookFormState } from '../views/site-publishing.tsx';

/** The tab's forms, whose addresses opened with GET show the tab. */
export const PUBLISHING_FORMS = ['webhook', 'test', 'rotate-key', 'rotate-preview-key'] as const;

export function addPublishingTab(
  app: Hono<AdminEnv>,
  { deps, siteOf, notFound, flashOf, redirectWith }: AdminPages,
): void {
  // What the tab shows once after a save or a test (post/redirect/get). Each is for one site's
  // tab: a generated secret must never appear under another site.
  const publishingFlash = createOneTimeFlash<
    { siteId: string } & Pick<PublishingView, 'form' | 'generatedSecret' | 'testResult'>
  >();

  app.get('/sites/:site/publishing', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const hook = await deps.publishing.store.webhooks.get(site.id);
    const once = publishingFlash.take(c.get('session'), (f) => f.siteId === site.id);
    const view: PublishingView = {
      apiBase: `${deps.publicUrl()}/v1`,
      key: deps.keyring.keyFor(site.id),
      previewKey: deps.keyring.previewKeyFor(site.id),
      previewUrl: deps.lastBuild().sites.find((s) => s.site.id === site.id)?.site.previewUrl ?? null,
      webhook: hook
        ? {
            url: hook.url,
            secretHint: hook.secretHint,
            extraEvents: hook.extraEvents,
            disabledReason: hook.disabledReason,
          }
        : null,
      form: once?.form ?? null,
      generatedSecret: once?.generatedSecret ?? null,
      testResult: once?.testResult ?? null,
    };
    return c.html(<PublishingTab csrf={c.get('session').csrf} flash={flashOf(c)} site={site} view={view} />);
  });

  /** A key rotation form's action: confirmed, the key named by `keyName` gets a new generation. */
  const rotation =
    (keyName: (siteId: string) => string, unconfirmed: string, done: string) => async (c: Context<AdminEnv>) => {
      const site = siteOf(c);
      if (!site) return notFound(c);
      const form = await c.req.parseBody();
      if (form.confirm !== 'yes') return redirectWith(c, `/admin/sites/${site.id}/publishing`, 'error', unconfirmed);
      await deps.rotateKey(keyName(site.id));
      return redirectWith(c, `/admin/sites/${site.id}/publishing`, 'ok', done);
    };
  app.post(
    '/sites/:site/rotate-key',
    rotation(
      (id) => id,
      'Tick the confirmation to rotate the key.',
      'New key issued. The previous key no longer works: update your site.',
    ),
  );
  app.post(
    '/sites/:site/rotate-preview-key',
    rotation(
      previewKeyName,
      'Tick the confirmation to rotate the preview key.',
      "New preview key issued. The previous one, and its preview links, no longer work: update your site's preview route.",
    ),
  );

  app.post('/sites/:site/webhook', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const form = await c.req.parseBody();
    const url = typeof form.url === 'string' ? form.url : '';
    if (form.method === 'none') {
      const removed = await deps.publishing.store.webhooks.remove(site.id);
      return redirectWith(
        c,
        `/admin/sites/${site.id}/publishing`,
        'ok',
        removed ? 'Webhook removed: nothing more is sent to it.' : 'Content API only: nothing is pushed.',
      );
    }
    const typed = typeof form.secret === 'string' ? form.secret : '';
    const generated = form.generate === 'yes' ? generateWebhookSecret() : null;
    const secret = generated ?? (typed !== '' ? typed : undefined);
    const extraEvents = form.extraEvents === 'yes';
    const saved = await saveWebhook({ ...deps.publishing, allowPrivate: deps.allowPrivate }, site.id, {
      url,
      ...(secret !== undefined ? { secret } : {}),
      extraEvents,
    });
    const back = `/admin/sites/${site.id}/publishing`;
    if (!saved.ok) {
      const state: WebhookFormState = {
        method: 'webhook',
        url,
        secret: typed,
        generate: generated !== null,
        extraEvents,
        problems: saved.problems.map((p) => ({ field: p.field, message: p.message })),
      };
      publishingFlash.put(c.get('session'), { siteId: site.id, form: state });
      return redirectWith(
        c,
        back,
        'error',
        `Not saved: ${saved.problems.length === 1 ? 'fix the field marked below' : 'fix the fields marked below'}.`,
      );
    }
    const resumed = saved.resumed
      ? ` Re-enabled: ${saved.resumed.missed} event${saved.resumed.missed === 1 ? '' : 's'} the receiver missed queued again.`
      : '';
    if (generated) {
      publishingFlash.put(c.get('session'), { siteId: site.id, generatedSecret: generated });
      return redirectWith(c, back, 'ok', `Webhook saved.${resumed}`);
    }
    return redirectWith(c, back, 'ok', `Webhook saved.${resumed} Run Test connection to check it.`);
  });

  app.post('/sites/:site/test', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const result = await testWebhook({ ...deps.publishing, distDir: deps.distDir }, site.id);
    const outcome = result.sent
      ? {
          ok: result.explanation.ok,
          message: result.explanation.message,
          code: result.explanation.code,
          deliveryId: result.deliveryId,
        }
      : { ok: false, message: result.message, code: result.code };
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(outcome);
    publishingFlash.put(c.get('session'), { siteId: site.id, testResult: outcome });
    return c.redirect(`/admin/sites/${site.id}/publishing#test-result`, 303);
  });
}
