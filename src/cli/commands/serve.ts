// `quire start [--follow <git-url-or-path> [--branch <b>] [--interval <s>]]` and `quire dev`: the
// options checked, then the server (src/app/server-process.ts) until SIGINT or SIGTERM.
import { planFollow, type FollowArgs } from '../../app/following.ts';
import { startServer } from '../../app/server-process.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';
import { stopSignal } from '../stop-signal.ts';

export async function runServer(ctx: CliContext, opts: { watch: boolean; follow?: FollowArgs }): Promise<number> {
  const follow = opts.follow ? planFollow(ctx.config, opts.follow) : null;
  if (typeof follow === 'string') return refuseCommandLine(ctx.err, `quire start: ${follow}`);
  if ((await startServer(ctx.app, { watch: opts.watch, follow }, ctx)) === 'no-build') return 1;
  // Stopped by a signal; the App closes what the server opened, the last first.
  await stopSignal();
  return 0;
}
