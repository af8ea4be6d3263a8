// What the CLI prints is safe for a terminal: control sequences that come from content (file
// names, image paths) or from a receiver's reply are shown escaped, never written raw. The real
// CLI in a child process, a real content tree and a real HTTPS receiver.
import { beforeEach, describe, expect, it } from 'vitest';
import { printable, printableText } from '../../src/text/printable.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

// Clear the screen, set the window title, a hyperlink, C1 CSI, a right-to-left override.
const HOSTILE = '\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x9b31m\u202etxt.exe';
/** Control characters a terminal acts on: C0 but tab and line feed, DEL, C1, bidi controls. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const setup = useReceiverProject();
let p: TempProject;
let receiver: HttpsReceiver;
beforeEach(() => {
  receiver = setup.receiver();
});
const env = () => setup.env();

function expectNoRawControl(text: string): void {
  expect(text).not.toMatch(RAW_CONTROL);
}

describe('printable', () => {
  it('escapes every control character visibly; printableText keeps line breaks and tabs', () => {
    expect(printable(`a\x1b[31mb\nc\td\u202e\x9b`)).toBe('a\\u001b[31mb\\u000ac\\u0009d\\u202e\\u009b');
    expect(printableText('a\tb\nc\x1b\r')).toBe('a\tb\nc\\u001b\\u000d');
    expect(printable('Crème brûlée — 日本語')).toBe('Crème brûlée — 日本語');
    // Inside a JSON string the escape is still JSON, meaning the same character.
    expect(JSON.parse(printableText(JSON.stringify({ t: '\u202e\x7f' })))).toEqual({ t: '\u202e\x7f' });
  });
});

describe('the CLI prints no control sequence from untrusted text', { timeout: 60_000 }, () => {
  it('from content: a hostile file name and image path in build problems', async () => {
    p = setup.project.current = createTempProject();
    writeSite(p, 'one');
    p.write(`one/articles/${HOSTILE}.md`, '---\nstatus: published\n---\nNo title.\n');
    p.write('one/articles/b.md', article({ title: 'B', status: 'published', image: JSON.stringify(`${HOSTILE}.png`) }));
    const r = await runCli(['build'], env(), p.root);
    expect(r.code).toBe(1);
    expectNoRawControl(r.stdout);
    expectNoRawControl(r.stderr);
    expect(r.stderr).toContain('\\u001b[2J\\u001b]0;pwned\\u0007'); // shown, escaped
    expect(r.stderr).toContain('\\u202etxt.exe');
    expect(r.stderr).toMatch(/CONTENT_FIELD_REQUIRED/);
  });

  it("from a receiver's reply: publish, deliveries and webhook test", async () => {
    p = setup.project.current = createTempProject({ git: true });
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'A', status: 'published' }));
    p.commit('first', '2026-03-01T10:00:00Z');
    receiver.respond(() => ({ status: 400, body: `bad request ${HOSTILE}\r\nforged line` }));
    const set = await runCli(
      [
        'webhook',
        'set',
        'one',
        '--url',
        `https://127.0.0.1:${receiver.port}/hook`,
        '--secret',
        'a-receiver-secret-0123456789',
      ],
      env(),
    );
    expect(set.code, set.stderr).toBe(0);
    for (const args of [['publish'], ['deliveries'], ['deliveries', '--json'], ['webhook', 'test', 'one']]) {
      const r = await runCli(args, env());
      expectNoRawControl(r.stdout);
      expectNoRawControl(r.stderr);
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(/\\u001b\[2J|\\\\u001b\[2J/);
    }
  });
});
