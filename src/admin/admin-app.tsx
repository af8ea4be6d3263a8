// The Publishing web app under /admin: sign in with the admin token, then per site the
// Articles, Publishing (key, webhook, Test connection) and Deliveries tabs. Server-rendered
// forms that work without JavaScript; every POST needs the session's CSRF token.
import { Hono, type Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { ApiError } from '../api/api-error.ts';
import type { SnapshotReader, SiteContent } from '../snapshot/snapshot-reader.ts';
import type { ContentFacts } from '../content/load-content.ts';
import { printable } from '../text/printable.ts';
import type { Keyring } from '../keys/api-keys.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { redeliver } from '../delivery/redeliver.ts';
import { retryPending, type RetryOutcome } from '../delivery/retry-now.ts';
import { testWebhook } from '../delivery/test-connection.ts';
import { generateWebhookSecret, saveWebhook } from '../publish/webhook-settings.ts';
import type { TrustProxy } from '../config/trust-proxy.ts';
import { requestClientAddress, requestOrigin } from '../server/client-address.ts';
import { articleFactsFromContent } from './article-facts.ts';
import { articleStatuses } from './article-status.ts';
import { DEFAULT_TIMEZONE } from '../content/model.ts';
import { previewKeyName } from '../keys/api-keys.ts';
import { createPreviewToken, DEFAULT_PREVIEW_TTL_MS, previewLink } from '../keys/preview-token.ts';
import { ADMIN_ASSETS } from './assets.ts';
import { ADMIN_SECURITY_HEADERS } from './security-headers.ts';
import { createOneTimeFlash } from './one-time-flash.ts';
import { createSessions, SESSION_COOKIE, type Session } from './sessions.ts';
import { ErrorPage } from './views/error-page.tsx';
import { NotFoundPage } from './views/not-found.tsx';
import { ArticlesTab } from './views/site-articles.tsx';
import { DeliveriesTab } from './views/site-deliveries.tsx';
import { PublishingTab, type PublishingView, type WebhookFormState } from './views/site-publishing.tsx';
import { SignInPage } from './views/sign-in.tsx';
import { SitesPage } from './views/sites.tsx';

export interface AdminDeps {
  adminToken: string;
  /**
   * Base URL of this server as clients see it (known once it listens). A form posted from its
   * origin is not cross-site, and the session cookie is Secure when it is https.
   */
  publicUrl: () => string;
  /** Proxies whose X-Forwarded-* name the client and the origin it used (default: none). */
  trustProxy?: TrustProxy;
  contentDir: string;
  distDir: string;
  dist: SnapshotReader;
  keyring: Keyring;
  /** Rotates a key: a site id (its API key), or previewKeyName(site) (its preview key); done when it resolves. */
  rotateKey: (keyName: string) => Promise<unknown>;
  publishing: DeliveryDeps;
  allowPrivate: boolean;
  /**
   * What the latest build read and found (the server keeps it): pages show this and never read
   * or parse content while answering a request.
   */
  lastBuild: () => ContentFacts;
  /** Where a request's unexpected failure is logged (its page says only that it failed). */
  log?: (line: string) => void;
  /** Called after a change that should reach receivers soon (Redeliver queued behind another). */
  wakeDeliveries?: () => void;
}

type Env = { Variables: { session: Session } };

export function createAdminApp(deps: AdminDeps) {
  const sessions = createSessions(deps.adminToken, deps.publishing.now);
  // What the Publishing tab shows once after a save or a test (post/redirect/get).
  // Each is for one site's tab: a generated secret must never appear under another site.
  const publishingFlash = createOneTimeFlash<{ siteId: string } & Pick<PublishingView, 'form' | 'generatedSecret' | 'testResult'>>();
  // What "Send pending now" did, shown once on that site's Deliveries tab.
  const retryFlash = createOneTimeFlash<{ siteId: string; outcomes: RetryOutcome[] }>();
  const app = new Hono<Env>();

  app.use('*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(ADMIN_SECURITY_HEADERS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
  });

  // `/admin/` (and any address typed with a trailing slash) is the page at the same address
  // without it, not the 404 page. A relative Location: the Host header names no trusted origin.
  app.use('*', async (c, next) => {
    const { pathname, search } = new URL(c.req.url);
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && pathname.length > 1 && pathname.endsWith('/')) return c.redirect(pathname.replace(/\/+$/, '') + search, 301);
    await next();
  });

  for (const asset of Object.values(ADMIN_ASSETS)) {
    app.get(asset.path.replace('/admin', ''), () =>
      new Response(asset.body, { headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' } }),
    );
  }

  // The origins this app's own pages are served from: the one the request was sent to (as a
  // trusted proxy reports it) and the public URL's (a proxy that forwards it as plain http).
  const ownOrigins = (c: Context) => [requestOrigin(c, deps.trustProxy), originOf(deps.publicUrl())];
  const crossSite = (c: Context) => sentFromAnotherSite(c, ownOrigins(c));
  const secure = (c: Context) => ownOrigins(c).some((o) => o?.startsWith('https:'));

  const refuse = (c: Context, status: 401 | 403, message: string) => c.html(<ErrorPage message={message} />, status);
  const CROSS_SITE = 'Refused: this form was sent from another site. Use the Publishing app itself.';

  app.get('/sign-in', (c) => c.html(<SignInPage />));
  app.post('/sign-in', async (c) => {
    if (crossSite(c)) return refuse(c, 403, CROSS_SITE);
    const form = await c.req.parseBody();
    const result = sessions.signIn(typeof form.token === 'string' ? form.token : '', requestClientAddress(c, deps.trustProxy));
    if (result === 'throttled') return c.html(<SignInPage error="Too many wrong tokens: wait a minute and try again." />, 429);
    if (!result) return c.html(<SignInPage error="That token is not right." />, 401);
    setCookie(c, SESSION_COOKIE, result.id, { path: '/admin', httpOnly: true, sameSite: 'Strict', secure: secure(c), maxAge: 12 * 3600 });
    return c.redirect('/admin', 303);
  });

  // Everything below needs a session; every POST also needs its CSRF token.
  app.use('*', async (c, next) => {
    const session = sessions.get(getCookie(c, SESSION_COOKIE));
    if (!session) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect('/admin/sign-in', 303);
      return refuse(c, 401, 'Sign in first: there is no session, or it has ended.');
    }
    if (c.req.method === 'POST') {
      if (crossSite(c)) return refuse(c, 403, CROSS_SITE);
      const form = await c.req.parseBody();
      const token = typeof form._csrf === 'string' ? form._csrf : c.req.header('x-csrf-token');
      if (!sessions.csrfValid(session, token)) return refuse(c, 403, 'The form expired or did not come from this app: reload the page and try again.');
    }
    c.set('session', session);
    await next();
  });

  app.post('/sign-out', (c) => {
    sessions.signOut(c.get('session').id);
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/sign-in', 303);
  });

  const sitesOf = (): Map<string, SiteContent> => deps.dist.current()?.sites ?? new Map();
  const siteOr404 = (c: Context<Env>) => {
    const site = sitesOf().get(c.req.param('site') ?? '');
    return site ? { id: site.id, name: site.summary.name } : null;
  };
  const notFound = (c: Context<Env>) => c.html(<NotFoundPage csrf={c.get('session').csrf} />, 404);
  const flashOf = (c: Context<Env>) => sessions.takeFlash(c.get('session'));
  const redirectWith = (c: Context<Env>, to: string, kind: 'ok' | 'error', text: string) => {
    c.get('session').flash = { kind, text };
    return c.redirect(to, 303);
  };

  app.get('/', async (c) => {
    const { store } = deps.publishing;
    const sites = [];
    for (const s of sitesOf().values()) {
      const hook = await store.webhooks.get(s.id);
      const counts = await store.outbox.counts(s.id);
      // Failures count while there is a webhook to redeliver to; a removed webhook waits for nothing.
      const undelivered = hook ? (await store.outbox.undelivered(s.id)).length : 0;
      sites.push({ id: s.id, name: s.summary.name, published: s.articles.size, webhook: hook ? { url: hook.url, disabled: hook.disabledAt !== null } : null, pending: counts.pending, undelivered });
    }
    return c.html(<SitesPage csrf={c.get('session').csrf} flash={flashOf(c)} sites={sites} />);
  });

  app.get('/sites/:site', (c) => c.redirect(`/admin/sites/${c.req.param('site')}/publishing`, 303));

  app.get('/sites/:site/articles', (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const content = deps.lastBuild();
    const loaded = content.sites.find((s) => s.site.id === site.id);
    const { articles, siteProblems } = articleFactsFromContent(deps.contentDir, site.id, loaded, content.issues);
    const live = new Map(sitesOf().get(site.id)!.items.map((i) => [i.item.slug, i.item]));
    const timezone = loaded?.site.timezone ?? DEFAULT_TIMEZONE;
    const now = deps.publishing.now();
    const rows = articleStatuses(articles, live, now);
    // Drafts and scheduled articles open on the site's preview route with a signed 24 h link.
    const template = loaded?.site.previewUrl ?? null;
    if (template) {
      const previewKey = deps.keyring.previewKeyFor(site.id);
      for (const row of rows) {
        if (row.slug === null || (row.state !== 'draft' && row.state !== 'scheduled')) continue;
        row.previewLink = previewLink(template, row.slug, createPreviewToken(previewKey, { site: site.id, slug: row.slug }, DEFAULT_PREVIEW_TTL_MS, now).token);
      }
    }
    return c.html(<ArticlesTab csrf={c.get('session').csrf} flash={flashOf(c)} site={{ ...site, timezone }} articles={rows} siteProblems={siteProblems} />);
  });

  app.get('/sites/:site/articles/:file{[a-z0-9-]+\\.json}', (c) => {
    const body = sitesOf().get(c.req.param('site'))?.articles.get(c.req.param('file').replace(/\.json$/, ''));
    if (!body) return notFound(c);
    return new Response(body.bytes, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  });

  app.get('/sites/:site/publishing', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const hook = await deps.publishing.store.webhooks.get(site.id);
    const once = publishingFlash.take(c.get('session'), (f) => f.siteId === site.id);
    const view: PublishingView = {
      apiBase: `${deps.publicUrl()}/v1`,
      key: deps.keyring.keyFor(site.id),
      previewKey: deps.keyring.previewKeyFor(site.id),
      previewUrl: deps.lastBuild().sites.find((s) => s.site.id === site.id)?.site.previewUrl ?? null,
      webhook: hook ? { url: hook.url, secretHint: hook.secretHint, extraEvents: hook.extraEvents, disabledReason: hook.disabledReason } : null,
      form: once?.form ?? null,
      generatedSecret: once?.generatedSecret ?? null,
      testResult: once?.testResult ?? null,
    };
    return c.html(<PublishingTab csrf={c.get('session').csrf} flash={flashOf(c)} site={site} view={view} />);
  });

  /** A key rotation form's action: confirmed, the key named by `keyName` gets a new generation. */
  const rotation = (keyName: (siteId: string) => string, unconfirmed: string, done: string) => async (c: Context<Env>) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const form = await c.req.parseBody();
    if (form.confirm !== 'yes') return redirectWith(c, `/admin/sites/${site.id}/publishing`, 'error', unconfirmed);
    await deps.rotateKey(keyName(site.id));
    return redirectWith(c, `/admin/sites/${site.id}/publishing`, 'ok', done);
  };
  app.post('/sites/:site/rotate-key', rotation((id) => id, 'Tick the confirmation to rotate the key.', 'New key issued. The previous key no longer works: update your site.'));
  app.post(
    '/sites/:site/rotate-preview-key',
    rotation(previewKeyName, 'Tick the confirmation to rotate the preview key.', 'New preview key issued. The previous one, and its preview links, no longer work: update your site\'s preview route.'),
  );

  app.post('/sites/:site/webhook', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const form = await c.req.parseBody();
    const url = typeof form.url === 'string' ? form.url : '';
    if (form.method === 'none') {
      const removed = await deps.publishing.store.webhooks.remove(site.id);
      return redirectWith(c, `/admin/sites/${site.id}/publishing`, 'ok', removed ? 'Webhook removed: nothing more is sent to it.' : 'Content API only: nothing is pushed.');
    }
    const typed = typeof form.secret === 'string' ? form.secret : '';
    const generated = form.generate === 'yes' ? generateWebhookSecret() : null;
    const secret = generated ?? (typed !== '' ? typed : undefined);
    const extraEvents = form.extraEvents === 'yes';
    const saved = await saveWebhook({ ...deps.publishing, allowPrivate: deps.allowPrivate }, site.id, { url, ...(secret !== undefined ? { secret } : {}), extraEvents });
    const back = `/admin/sites/${site.id}/publishing`;
    if (!saved.ok) {
      const state: WebhookFormState = { method: 'webhook', url, secret: typed, generate: generated !== null, extraEvents, problems: saved.problems.map((p) => ({ field: p.field, message: p.message })) };
      publishingFlash.put(c.get('session'), { siteId: site.id, form: state });
      return redirectWith(c, back, 'error', `Not saved: ${saved.problems.length === 1 ? 'fix the field marked below' : 'fix the fields marked below'}.`);
    }
    const resumed = saved.resumed ? ` Re-enabled: ${saved.resumed.missed} event${saved.resumed.missed === 1 ? '' : 's'} the receiver missed queued again.` : '';
    if (generated) {
      publishingFlash.put(c.get('session'), { siteId: site.id, generatedSecret: generated });
      return redirectWith(c, back, 'ok', `Webhook saved.${resumed}`);
    }
    return redirectWith(c, back, 'ok', `Webhook saved.${resumed} Run Test connection to check it.`);
  });

  app.post('/sites/:site/test', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const result = await testWebhook({ ...deps.publishing, distDir: deps.distDir }, site.id);
    const outcome = result.sent ? { ok: result.explanation.ok, message: result.explanation.message, code: result.explanation.code, deliveryId: result.deliveryId } : { ok: false, message: result.message, code: result.code };
    if ((c.req.header('accept') ?? '').includes('application/json')) return c.json(outcome);
    publishingFlash.put(c.get('session'), { siteId: site.id, testResult: outcome });
    return c.redirect(`/admin/sites/${site.id}/publishing#test-result`, 303);
  });

  app.get('/sites/:site/deliveries', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const { outbox } = deps.publishing.store;
    const undelivered = (await deps.publishing.store.webhooks.get(site.id)) ? await outbox.undelivered(site.id) : [];
    const retried = retryFlash.take(c.get('session'), (f) => f.siteId === site.id)?.outcomes ?? null;
    const log = await outbox.attemptLog({ siteId: site.id, limit: 200 });
    const { pending } = await outbox.counts(site.id);
    return c.html(<DeliveriesTab csrf={c.get('session').csrf} flash={flashOf(c)} site={site} log={log} pending={pending} undelivered={undelivered} retried={retried} />);
  });

  app.post('/sites/:site/deliveries/retry', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const back = `/admin/sites/${site.id}/deliveries`;
    // The server's worker may hold some: not waited for here, it sends them itself.
    const result = await retryPending(deps.publishing, { siteId: site.id }, { waitForOthersMs: 0, sendAtMost: SEND_NOW_AT_MOST });
    if (!result.ok) return redirectWith(c, back, 'error', result.message);
    const { outcomes, leftDue } = result;
    if (leftDue || outcomes.some((o) => o.state === 'busy')) deps.wakeDeliveries?.();
    if (!outcomes.length) return redirectWith(c, back, 'ok', 'Nothing was pending.');
    retryFlash.put(c.get('session'), { siteId: site.id, outcomes });
    const delivered = outcomes.filter((o) => o.state === 'delivered').length;
    const rest = leftDue ? ` The other ${leftDue} are due now and go out from the server in the next seconds.` : '';
    return redirectWith(c, `${back}#retry-result`, delivered === outcomes.length ? 'ok' : 'error', `Sent ${outcomes.length} pending: ${delivered} delivered.${rest}`);
  });

  app.post('/sites/:site/deliveries/:id/redeliver', async (c) => {
    const site = siteOr404(c);
    if (!site) return notFound(c);
    const result = await redeliver(deps.publishing, c.req.param('id'), site.id);
    const back = `/admin/sites/${site.id}/deliveries`;
    if (!result.sent) {
      if (result.code === 'BUSY') deps.wakeDeliveries?.();
      return redirectWith(c, back, 'error', result.message);
    }
    return redirectWith(c, back, result.explanation.ok ? 'ok' : 'error', `Redelivered (${result.deliveryId}): ${result.explanation.message}`);
  });

  // A form's address opened with GET (a bookmark, a reload after a redirect): its page instead.
  for (const [action, tab] of [['webhook', 'publishing'], ['test', 'publishing'], ['rotate-key', 'publishing'], ['rotate-preview-key', 'publishing'], ['deliveries/:id/redeliver', 'deliveries'], ['deliveries/retry', 'deliveries']] as const) {
    app.get(`/sites/:site/${action}`, (c) => {
      const site = siteOr404(c);
      return site ? c.redirect(`/admin/sites/${site.id}/${tab}`, 303) : notFound(c);
    });
  }
  // Mounted apps do not bring their own notFound handler: this catch-all keeps every address
  // under /admin inside the app.
  app.all('*', (c) => notFound(c));

  // Errors thrown in this app's handlers get a page of the app too, not the API's JSON.
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderAdminRefusal(err, c); // a body over the cap, read here
    const csrf = c.get('session')?.csrf;
    deps.log?.(`admin: internal error on ${c.req.method} ${printable(c.req.path)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return c.html(<ErrorPage csrf={csrf} message="The server failed to answer this request; the details are in its log." />, 500);
  });

  return app;
}

/**
 * A refusal of the server's (a request body over the cap) on an /admin path, as a page of the app:
 * the server's own error for that status, with no API JSON. The status and headers are kept.
 */
export function renderAdminRefusal(err: ApiError, c: Context): Response | Promise<Response> {
  const headers = { ...err.headers, ...ADMIN_SECURITY_HEADERS, 'cache-control': 'no-store' };
  return c.html(<ErrorPage message={`${err.message}.`} />, err.status as 413, headers);
}

/** "Send pending now" sends this many in the request (4 at a time); the rest are made due for the worker. */
const SEND_NOW_AT_MOST = 40;

/** Browsers say where a request comes from; a page on another site may not post here. */
function sentFromAnotherSite(c: Context, ownOrigins: readonly (string | null)[]): boolean {
  const fetchSite = c.req.header('sec-fetch-site');
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = c.req.header('origin');
  return !!origin && origin !== 'null' && !ownOrigins.includes(origin);
}

/** The origin of a base URL; null before it is known (a server not yet listening). */
function originOf(base: string): string | null {
  try {
    return new URL(base).origin;
  } catch {
    return null;
  }
}
