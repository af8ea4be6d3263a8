// `quire mcp` (npm run mcp): the MCP tool server over stdio (src/app/mcp-process.ts), until stdin
// closes or a signal.
import { startMcp } from '../../app/mcp-process.ts';
import type { CliContext } from '../context.ts';
import { stopSignal } from '../stop-signal.ts';

export async function runMcp(ctx: CliContext): Promise<number> {
  await startMcp(ctx.app, ctx);
  await Promise.race([new Promise<void>((resolve) => process.stdin.on('close', resolve)), stopSignal()]);
  return 0;
}
