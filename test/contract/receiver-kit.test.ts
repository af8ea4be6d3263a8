// The receiver kit (src/receiver/, `quire/receiver` and `quire/receiver/web`) imports nothing else
// of Quire by design, so it spells out its own payload type. Here it is held to the contract: the
// two types are assignable both ways (checked by tsc), and every payload a real `quire publish`
// delivers — all four events — passes both variants' verification, with the same result, and
// parses with the contract's zod schema.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { WebhookPayloadSchema, type WebhookPayload } from '../../src/contract/webhook.ts';
import { verifyWebhook, type QuireWebhookPayload } from '../../src/receiver/verify-webhook.ts';
import { verifyWebhook as verifyWebhookWithWebCrypto } from '../../src/receiver/verify-webhook-web.ts';
import { RECEIVER_SECRET as SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite } from '../helpers/temp-content.ts';

const KIT = path.resolve(import.meta.dirname, '../../src/receiver');
const importsOf = (file: string) =>
  [...fs.readFileSync(path.join(KIT, file), 'utf8').matchAll(/^import [^;]* from '([^']+)';$/gm)].map((m) => m[1]!);
const setup = useReceiverProject();
const quire = async (args: string[]) => {
  const r = await runCli(args, setup.env());
  expect(r.code, r.stderr).toBe(0);
  return r;
};

describe('the receiver kit and the contract', { timeout: 120_000 }, () => {
  it("the kit's payload type and the contract's are assignable both ways", () => {
    expectTypeOf<QuireWebhookPayload>().toExtend<WebhookPayload>();
    expectTypeOf<WebhookPayload>().toExtend<QuireWebhookPayload>();
    expectTypeOf<Extract<QuireWebhookPayload, { event: 'updated' }>['article']>().toEqualTypeOf<
      Extract<WebhookPayload, { event: 'published' | 'updated' }>['article']
    >();
  });

  it('the kit imports nothing but its own modules and node:crypto, and the Web Crypto variant no node: module at all', () => {
    expect(importsOf('verify-webhook.ts').sort()).toEqual(['./verify-steps.ts', 'node:crypto']);
    expect(importsOf('verify-webhook-web.ts')).toEqual(['./verify-steps.ts']);
    expect(importsOf('verify-steps.ts')).toEqual([]);
  });

  it('every delivered payload verifies with the kit and parses with the contract', async () => {
    const p = (setup.project.current = createTempProject({ git: true }));
    writeSite(p, 'one');
    p.write(
      'one/articles/a.md',
      article({ title: 'A', status: 'published', metaDescription: 'About A.' }, 'Body of A.\n'),
    );
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }, 'Body of B.\n'));
    p.commit('first', '2026-03-01T10:00:00Z');
    const receiver = setup.receiver();
    await quire([
      'webhook',
      'set',
      'one',
      '--url',
      `https://127.0.0.1:${receiver.port}/hook`,
      '--secret',
      SECRET,
      '--extra-events',
    ]);
    await quire(['publish']);
    p.write('one/articles/a.md', article({ title: 'A, edited', status: 'published' }, 'Body of A, edited.\n'));
    p.commit('edit a', '2026-03-02T10:00:00Z');
    await quire(['publish']);
    p.write('one/articles/b.md', article({ title: 'B', status: 'draft' }, 'Body of B.\n'));
    p.remove('one/articles/a.md');
    p.commit('withdraw b, delete a', '2026-03-03T10:00:00Z');
    await quire(['publish']);

    const seen: string[] = [];
    for (const req of receiver.requests) {
      const verified = verifyWebhook(req.rawBody, req.headers, SECRET);
      if (!verified.ok) throw new Error(verified.reason);
      expect(
        await verifyWebhookWithWebCrypto(
          req.rawBody.toString('utf8'),
          new Headers(req.headers as Record<string, string>),
          SECRET,
        ),
      ).toEqual(verified);
      const forged = Buffer.from(req.rawBody.toString('utf8').replace(/"slug":"/, '"slug":"x'));
      expect(await verifyWebhookWithWebCrypto(forged, req.headers, SECRET)).toEqual(
        verifyWebhook(forged, req.headers, SECRET),
      );
      expect(verifyWebhook(forged, req.headers, SECRET).ok).toBe(false);
      const payload = WebhookPayloadSchema.parse(verified.payload);
      expect(payload).toEqual(JSON.parse(req.rawBody.toString('utf8')));
      expect(req.headers['x-quire-event']).toBe(payload.event);
      seen.push(`${payload.event} ${payload.article.slug}`);
    }
    expect(seen.sort()).toEqual(['deleted a', 'published a', 'published b', 'unpublished b', 'updated a']);
  });

  it('the contract refuses what Quire does not send', () => {
    const sent = {
      event: 'updated',
      article: {
        id: 'a',
        title: 'A',
        slug: 'a',
        status: 'published',
        metaDescription: '',
        mdx: '',
        html: '',
        imageUrl: '',
        imageAlt: '',
      },
    };
    expect(WebhookPayloadSchema.safeParse(sent).success).toBe(true);
    expect(WebhookPayloadSchema.safeParse({ ...sent, article: { ...sent.article, author: 'Ada' } }).success).toBe(
      false,
    );
    expect(WebhookPayloadSchema.safeParse({ ...sent, article: { ...sent.article, imageUrl: null } }).success).toBe(
      false,
    );
    expect(WebhookPayloadSchema.safeParse({ event: 'deleted', article: sent.article }).success).toBe(false);
    expect(WebhookPayloadSchema.safeParse({ ...sent, event: 'renamed' }).success).toBe(false);
  });
});
