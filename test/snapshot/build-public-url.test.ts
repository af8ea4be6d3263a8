// What a server says of a build made for another public URL (src/snapshot/build-public-url.ts):
// which build, made for what, against which URL, the code, and how to make one it serves.
import { describe, expect, it } from 'vitest';
import { refusedBuildMessage, servedForOtherUrlMessage } from '../../src/snapshot/build-public-url.ts';

const build = { buildId: 'AbCdEfGhIjKlMnOpQrStUvWxYz012345', publicUrl: 'http://localhost:4000' };
const SERVER = 'https://api.example.com';

describe('a build made for another public URL', () => {
  it('not swapped in: names the build by its short id, both URLs, the code, and the fix', () => {
    const message = refusedBuildMessage(build, SERVER);
    expect(message).toContain(
      "dist/ now holds build AbCdEfGhIjKl, made for http://localhost:4000, not for this server's public URL https://api.example.com: not served",
    );
    expect(message).not.toContain(build.buildId); // the short id only
    expect(message).toContain('the last good build stays served');
    expect(message).toContain(
      "build with QUIRE_PUBLIC_URL=https://api.example.com, or with this server's state dir and no QUIRE_PUBLIC_URL",
    );
    expect(message).toMatch(/ {2}\[BUILD_PUBLIC_URL_MISMATCH\]$/);
    expect(message).not.toContain('\n');
  });

  it('served for want of another: a warning naming the build, both URLs and the code', () => {
    const message = servedForOtherUrlMessage(build, SERVER);
    expect(message).toMatch(
      /^warning: the build served, AbCdEfGhIjKl, was made for http:\/\/localhost:4000, not for this server's public URL https:\/\/api\.example\.com: /,
    );
    expect(message).toMatch(/ {2}\[BUILD_PUBLIC_URL_MISMATCH\]$/);
  });
});
