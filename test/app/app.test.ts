// The composition root: parts open on first use, the public URL is decided once, and close()
// closes in the reverse order of opening.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app/app.ts';
import { parseConfig } from '../../src/config/config.ts';
import { createTempProject, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const configFor = (proj: TempProject, env: Record<string, string> = {}) =>
  parseConfig({
    QUIRE_CONTENT_DIR: proj.contentDir,
    QUIRE_DIST_DIR: proj.distDir,
    QUIRE_STATE_DIR: proj.stateDir,
    ...env,
  });

describe('openApp', () => {
  it('opens nothing until asked, each part once, and closes the last opened first', async () => {
    p = createTempProject();
    const app = openApp(configFor(p), { log: () => {} });
    expect(fs.existsSync(p.stateDir)).toBe(false);
    const closed: string[] = [];
    app.onClose(() => void closed.push('first'));
    const delivery = app.delivery();
    expect(app.delivery()).toBe(delivery);
    expect(app.state()).toBe(delivery.store);
    expect(fs.existsSync(path.join(p.stateDir, 'quire.db'))).toBe(true);
    app.onClose(() => void closed.push('last'));
    await app.close();
    expect(closed).toEqual(['last', 'first']);
    await expect(delivery.store.webhooks.list()).rejects.toThrow(); // closed with the app, between the two
  });

  it('decides the public URL once: from QUIRE_PUBLIC_URL, else the port the server listens on, else PORT', () => {
    p = createTempProject();
    expect(openApp(configFor(p, { QUIRE_PUBLIC_URL: 'https://api.example.com/' }), { log: () => {} }).publicUrl).toBe(
      'https://api.example.com',
    );
    expect(openApp(configFor(p, { PORT: '8123' }), { log: () => {} }).publicUrl).toBe('http://localhost:8123');
    const serving = openApp(configFor(p, { PORT: '0' }), { log: () => {} });
    serving.listening(40123);
    expect(serving.buildSettings.publicUrl).toBe('http://localhost:40123');
    const late = openApp(configFor(p, { PORT: '0' }), { log: () => {} });
    expect(late.publicUrl).toBe('http://localhost:0');
    expect(() => late.listening(40123)).toThrow(/decided before the server listened/);
  });

  it('says that private targets are allowed once, however many clients it opens', async () => {
    p = createTempProject();
    const said: string[] = [];
    const app = openApp(configFor(p, { QUIRE_ALLOW_PRIVATE_TARGETS: '1' }), { log: (line) => said.push(line) });
    app.delivery();
    app.verifyClient();
    await app.close();
    expect(said).toHaveLength(1);
  });
});
