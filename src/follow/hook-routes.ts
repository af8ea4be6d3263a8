// POST /hooks/git: a push notification asks the follower to fetch now. Mounted only while the
// server follows a repository with QUIRE_GIT_HOOK_SECRET set; the body is capped by the server's
// body limit like every other route. The answer does not wait for the fetch (GitHub and GitLab
// give up on slow hooks): 202 once the run is asked for, 401 without a valid signature; the body
// is `{"status": "queued" | "ignored" | "refused", "reason"?}`.
import { Hono } from 'hono';
import { pushedRef, verifyPushHook } from './hook-verification.ts';

export interface HookDeps {
  secret: string;
  /** The branch followed; null while the remote's default is not known yet (then every push fetches, and the fetch asks). */
  branch: () => string | null;
  /** Asks for a fetch (coalesced by the caller). */
  trigger: () => void;
  log: (line: string) => void;
}

export function createHookApp(deps: HookDeps): Hono {
  const app = new Hono();
  const noStore = { 'cache-control': 'no-store' };
  app.post('/git', async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const sender = verifyPushHook((name) => c.req.header(name), body, deps.secret);
    if (!sender) {
      return c.json(
        {
          status: 'refused',
          reason: 'send X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the hook secret) or X-Gitlab-Token',
        },
        401,
        noStore,
      );
    }
    // Pushes to other branches (and tags) change nothing this server serves.
    const ref = pushedRef(body);
    const branch = deps.branch();
    if (ref !== null && branch !== null && ref !== `refs/heads/${branch}`) {
      return c.json({ status: 'ignored', reason: `this server follows refs/heads/${branch}` }, 202, noStore);
    }
    deps.log(`Push notification (${sender}): fetching.`);
    deps.trigger();
    return c.json({ status: 'queued' }, 202, noStore);
  });
  return app;
}
