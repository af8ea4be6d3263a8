// The MCP tool server (`quire mcp`): assembled here. It serves the current build as clients of
// the API see it now (building first when there is none), over stdio: stdout is the protocol, so
// everything it says goes to err.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildExport } from '../compile/build.ts';
import { formatIssue } from '../content/issues.ts';
import { problemPathsFrom } from '../follow/followed-content.ts';
import { buildMcpServer } from '../mcp/build-mcp-server.ts';
import { timedReader } from '../snapshot/timed-view.ts';
import type { App } from './app.ts';
import type { Output } from './output.ts';
import { PACKAGE_VERSION } from './package-version.ts';

/** Connects the MCP server to stdio; it answers until the App closes. */
export async function startMcp(app: App, { err }: Pick<Output, 'err'>): Promise<void> {
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
    distDir: app.config.distDir,
    publishing: app.delivery(),
    verifyClient: app.verifyClient(),
    allowPrivateTargets: app.config.allowPrivateTargets,
    version: PACKAGE_VERSION,
  });
  await server.connect(new StdioServerTransport());
  app.onClose(() => server.close());
  err(`Quire MCP server ready on stdio (${dist.current()?.sites.size ?? 0} sites)`);
}
