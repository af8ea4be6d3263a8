// `quire mcp` (npm run mcp): the MCP tool server over stdio, until stdin closes or a signal.
// stdout is the protocol; everything else goes to stderr. Serves the current build (building
// first when there is none).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PACKAGE_VERSION } from '../../app/package-version.ts';
import { buildExport } from '../../compile/build.ts';
import { formatIssue } from '../../content/issues.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { buildMcpServer } from '../../mcp/build-mcp-server.ts';
import type { CliContext } from '../context.ts';
import { timedReader } from '../../snapshot/timed-view.ts';

export async function runMcp({ app, config, err }: CliContext): Promise<number> {
  const dist = app.dist();
  if (!dist.reload()) {
    const settings = app.buildSettings;
    const build = await buildExport(settings);
    for (const issue of build.issues) err(formatIssue(issue, problemPathsFrom(settings)));
    dist.reload();
  }
  app.onClose(dist.watch());
  // The build as clients of the API see it now: scheduled articles only from their go-live.
  const served = timedReader(dist);
  const server = buildMcpServer({
    snapshot: () => {
      dist.fresh();
      return served.current();
    },
    keyring: (await app.keys()).keyring,
    publicUrl: app.publicUrl,
    distDir: config.distDir,
    publishing: app.delivery(),
    verifyClient: app.verifyClient(),
    version: PACKAGE_VERSION,
  });
  await server.connect(new StdioServerTransport());
  app.onClose(() => server.close());
  err(`Quire MCP server ready on stdio (${dist.current()?.sites.size ?? 0} sites)`);
  await new Promise<void>((resolve) => {
    process.stdin.on('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  return 0;
}
