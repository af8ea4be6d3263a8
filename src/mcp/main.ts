// `npm run mcp`: the MCP tool server over stdio. stdout is the protocol; everything else goes to
// stderr. Serves the current build (building first when there is none).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createDistStore } from '../api/dist-store.ts';
import { buildDist } from '../build/build.ts';
import { formatIssue } from '../content/issues.ts';
import { parseConfig } from '../config/config.ts';
import { createKeyringFor, createVerifyClient, openPublishing } from '../cli/context.ts';
import { printableText } from '../cli/printable.ts';
import { buildMcpServer } from './build-mcp-server.ts';

const err = (line: string) => process.stderr.write(`${printableText(line)}\n`);

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const dist = createDistStore(config.distDir);
  if (!dist.reload()) {
    const build = await buildDist(config);
    for (const issue of build.issues) err(formatIssue(issue));
    dist.reload();
  }
  const stopWatching = dist.watch();
  const { keyring } = createKeyringFor(config);
  const ctx = { config, out: err, err };
  const publishing = openPublishing(ctx);
  // The private-targets warning was said once, by the publishing client.
  const verifyClient = createVerifyClient(ctx, () => {});
  const server = buildMcpServer({ snapshot: () => dist.fresh(), keyring, publicUrl: config.publicUrl, distDir: config.distDir, publishing, verifyClient, version: '1.0.0' });
  await server.connect(new StdioServerTransport());
  err(`Quire MCP server ready on stdio (${dist.current()?.sites.size ?? 0} sites)`);
  const stop = async () => {
    stopWatching();
    await server.close();
    publishing.close();
    verifyClient.close();
    process.exit(0);
  };
  process.stdin.on('close', () => void stop());
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  err(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
