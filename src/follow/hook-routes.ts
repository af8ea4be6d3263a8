// POST /hooks/git: a push notification asks the follower to fetch now. Mounted only while the
// server follows a repository with QUIRE_GIT_HOOK_SECRET set; the body is capped by the server's
// body limit like every other route. The answer does not wait for the fetch (GitHub and GitLab
// give up on slow hooks): 202 once the run is asked for, 401 without a valid signature; the body
// is `{"status": "queued" | "ignored" | "refused", "reason"?, "preview"?}`. A push to a branch the
// server previews (--previews) refreshes that branch's preview instead (`"preview": <branch>`).
import { Hono } from 'hono';
import { branchProblem } from './follow-source.ts';
import { pushedRef, verifyPushHook } from './hook-verification.ts';

export interface HookDeps {
  secret: string;
  /** The branch followed; null while the remote's default is not known yet (then every push fetches, and the fetch asks). */
  branch: () => string | null;
  /** Asks for a fetch (coalesced by the caller). */
  trigger: () => void;
  /**
   * A push to another branch: asks for its preview to be made again when the server previews it
   * (true), else false. Absent: the server previews no branch.
   */
  preview?: (branch: string) => boolean;
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
      // A name from the payload is input: checked as --branch is before anything uses it.
      const pushed = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
      if (pushed !== null && branchProblem(pushed) === null && deps.preview?.(pushed)) {
        deps.log(`Push notification (${sender}) for the branch preview ${pushed}: fetching.`);
        return c.json({ status: 'queued', preview: pushed }, 202, noStore);
      }
      return c.json({ status: 'ignored', reason: `this server follows refs/heads/${branch}` }, 202, noStore);
    }
    deps.log(`Push notification (${sender}): fetching.`);
    deps.trigger();
    return c.json({ status: 'queued' }, 202, noStore);
  });
  return app;
}
