// `quire webhook set|show|remove|test <site>`.
import { buildExport } from '../../compile/build.ts';
import { testWebhook } from '../../delivery/test-connection.ts';
import { generateWebhookSecret, saveWebhook } from '../../publish/webhook-settings.ts';
import { isKnownSite, refuseCommandLine, unknownAction, type CliContext } from '../context.ts';
import { reportBuild } from '../../app/build-report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { withCode } from '../../problems/problem.ts';

export interface WebhookArgs {
  action: string | undefined;
  site: string | undefined;
  url: string | undefined;
  secret: string | undefined;
  generateSecret: boolean;
  extraEvents: boolean | undefined;
  json: boolean;
}

const USAGE = `usage:
  quire webhook set <site> --url <https-url> (--secret <s> | --generate-secret) [--extra-events | --no-extra-events]
      (the secret may also come from QUIRE_WEBHOOK_SECRET; omit it to change only the URL)
  quire webhook show [<site>] [--json]
  quire webhook remove <site>
  quire webhook test <site>`;

const ACTIONS = ['set', 'show', 'remove', 'test'];

export async function runWebhook(ctx: CliContext, args: WebhookArgs): Promise<number> {
  const { out, err, config } = ctx;
  if (!args.action || !ACTIONS.includes(args.action) || (args.action !== 'show' && !args.site)) {
    const why = !args.action
      ? 'needs an action'
      : !ACTIONS.includes(args.action)
        ? unknownAction(args.action, ACTIONS)
        : `${args.action} needs a site`;
    return refuseCommandLine(err, `quire webhook: ${why}\n${USAGE}`);
  }
  if (args.site && !(await isKnownSite(ctx, args.site))) return 1;
  const deps = ctx.app.delivery();
  const site = args.site!;
  switch (args.action) {
    case 'set': {
      if (!args.url) {
        return refuseCommandLine(err, `--url is required\n${USAGE}`);
      }
      if (args.generateSecret && args.secret !== undefined) {
        return refuseCommandLine(err, 'give either --secret or --generate-secret, not both');
      }
      const secret = args.generateSecret ? generateWebhookSecret() : (args.secret ?? config.webhookSecret ?? undefined);
      const saved = await saveWebhook({ ...deps, allowPrivate: config.allowPrivateTargets }, site, {
        url: args.url,
        ...(secret !== undefined ? { secret } : {}),
        ...(args.extraEvents !== undefined ? { extraEvents: args.extraEvents } : {}),
      });
      if (!saved.ok) {
        for (const problem of saved.problems)
          err(`Not saved: ${problem.field === 'url' ? 'URL' : 'secret'}: ${problem.message}  [${problem.code}]`);
        return 1;
      }
      out(
        `Webhook of ${site} saved: POST ${saved.webhook.url} (secret ${saved.webhook.secretHint}${saved.webhook.extraEvents ? ', with unpublished/deleted events' : ''})`,
      );
      if (saved.resumed) {
        const n = saved.resumed.missed;
        out(
          `Re-enabled (it was disabled: ${saved.resumed.reason}); ${n} event${n === 1 ? '' : 's'} the receiver missed ${n === 1 ? 'is' : 'are'} queued again, with what was waiting: \`quire publish\` or the running server sends them.`,
        );
      }
      if (args.generateSecret) {
        out('Generated secret — shown once, store it in the receiver now:');
        out(secret!);
      }
      return 0;
    }
    case 'show': {
      const hooks = (await deps.store.webhooks.list()).filter((h) => !args.site || h.siteId === args.site);
      if (args.json) {
        out(
          JSON.stringify(
            hooks.map((h) => ({
              site: h.siteId,
              url: h.url,
              secret: h.secretHint,
              extraEvents: h.extraEvents,
              disabled: h.disabledReason,
            })),
          ),
        );
        return 0;
      }
      if (!hooks.length) out(args.site ? `${args.site} has no webhook` : 'no webhooks registered');
      for (const h of hooks) {
        out(
          `${h.siteId}\t${h.url}\tsecret ${h.secretHint}${h.extraEvents ? '\t+unpublished/deleted' : ''}${h.disabledAt ? `\tDISABLED: ${h.disabledReason}` : ''}`,
        );
      }
      return 0;
    }
    case 'remove': {
      const removed = await deps.store.webhooks.remove(site);
      out(removed ? `Webhook of ${site} removed; nothing more is sent to it.` : `${site} has no webhook`);
      return removed ? 0 : 1;
    }
    default: {
      // Test what the content publishes now, not whatever dist/ holds (maybe nothing yet).
      const settings = ctx.app.buildSettings;
      const build = await buildExport(settings);
      if (!build.ok) {
        reportBuild(build, err, problemPathsFrom(settings));
        err('Not tested: the content does not build.');
        return 1;
      }
      const result = await testWebhook({ ...deps, distDir: config.distDir }, site);
      if (!result.sent) {
        err(withCode(result.message, result.code));
        return 1;
      }
      (result.explanation.ok ? out : err)(
        `${result.explanation.message}\n(delivery ${result.deliveryId}: "updated" for ${result.slug})`,
      );
      return result.explanation.ok ? 0 : 1;
    }
  }
}
