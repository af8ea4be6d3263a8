// A webhook disabled by 410 Gone: publish says so and exits non-zero, and setting it again
// resumes from what the receiver last acknowledged. Real CLI, real git repo, real HTTPS receiver.
import { beforeEach, describe, expect, it } from 'vitest';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { RECEIVER_SECRET as SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const setup = useReceiverProject();
let receiver: HttpsReceiver;
let p: TempProject;
beforeEach(() => {
  receiver = setup.receiver();
});

const quire = (args: string[]) => runCli(args, setup.env());
const setWebhook = () =>
  quire(['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hook`, '--secret', SECRET]);
const received = () =>
  receiver.requests
    .map(
      (r) =>
        `${r.headers['x-quire-event']} ${(JSON.parse(r.rawBody.toString()) as { article: { slug: string } }).article.slug}`,
    )
    .sort();

describe('a webhook disabled by 410 Gone', { timeout: 90_000 }, () => {
  it('publish exits non-zero with the reason; setting it again sends what the receiver missed', async () => {
    p = setup.project.current = createTempProject({ git: true });
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'A', status: 'published' }));
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }));
    p.commit('first', '2026-03-01T10:00:00Z');
    expect((await setWebhook()).code).toBe(0);

    receiver.respond(() => ({ status: 410 }));
    let r = await quire(['publish']);
    expect(r.code).toBe(1);
    expect((await quire(['webhook', 'show'])).stdout).toMatch(/DISABLED: the receiver answered 410 Gone/);

    // Nothing changed since: still a failed run, with the reason.
    receiver.respond(() => ({ status: 200 }));
    receiver.requests.length = 0;
    r = await quire(['publish']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/webhook of one is DISABLED \(the receiver answered 410 Gone\): nothing is sent to it/);
    expect(receiver.requests).toHaveLength(0);

    // While it is off: c is published (queued, waiting); b is edited (an `updated` queued) and
    // then withdrawn, so neither its missed `published` nor the waiting `updated` may go out.
    p.write('one/articles/c.md', article({ title: 'C', status: 'published' }));
    p.write('one/articles/b.md', article({ title: 'B, edited', status: 'published' }));
    p.commit('second', '2026-03-02T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code).toBe(1);
    p.write('one/articles/b.md', article({ title: 'B, edited', status: 'draft' }));
    p.commit('third', '2026-03-03T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code).toBe(1);
    expect(receiver.requests).toHaveLength(0);

    const set = await setWebhook();
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(
      /Re-enabled \(it was disabled: the receiver answered 410 Gone\); 1 event the receiver missed is queued again/,
    );
    r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    expect(received()).toEqual(['published a', 'published c']);

    // Acknowledged now: nothing more to send.
    receiver.requests.length = 0;
    r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });
});
