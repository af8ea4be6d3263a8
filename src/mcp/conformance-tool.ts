// The MCP tool check_conformance: `quire conformance` for an agent wiring a site up. It sends
// requests (a test article, forged ones) to the site's receiver, so it is not read-only; a rule
// the receiver fails is in the result (ok: false), not an error of the tool.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { checkConformance } from '../integration/check-conformance.ts';
import type { SafeClient } from '../net/safe-client.ts';
import { withCode } from '../problems/problem.ts';
import type { Snapshot } from '../snapshot/snapshot-reader.ts';
import { ConformanceReportShape } from './schemas.ts';

export interface ConformanceToolDeps {
  snapshot: () => Snapshot | null;
  publishing: DeliveryDeps;
  verifyClient: SafeClient;
  allowPrivateTargets?: boolean;
}

export function registerConformanceTool(
  server: McpServer,
  deps: ConformanceToolDeps,
  answer: {
    site: z.ZodString;
    result: (data: Record<string, unknown>) => CallToolResult;
    failure: (message: string) => CallToolResult;
    unknownSite: (id: string) => CallToolResult;
  },
): void {
  server.registerTool(
    'check_conformance',
    {
      title: "Check the site's webhook receiver",
      description:
        "Runs the site's webhook receiver through what Quire will do to it, with a clearly marked test article (slug quire-conformance-…), signed with the registered webhook's secret: a valid `published`; the same delivery again (upserted, not duplicated); an `updated`; an older delivery arriving late (must not overwrite the newer); a forged request (must be refused with 401); which of the Bearer token and the signature it verifies (the Bearer alone is a warning); the raw-body rule both ways; and a live verification of the page it replies with {url, id}. Each failing rule has a code and a fix; ok is false when a rule failed.",
      inputSchema: {
        site: answer.site,
        url: z
          .string()
          .url()
          .optional()
          .describe('A webhook URL to send to instead of the registered one (https), e.g. a staging receiver'),
      },
      outputSchema: ConformanceReportShape.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ site, url }) => {
      const built = deps.snapshot()?.manifest.sites[site];
      if (!built) return answer.unknownSite(site);
      const r = await checkConformance(
        {
          publishing: deps.publishing,
          pageClient: deps.verifyClient,
          allowPrivate: deps.allowPrivateTargets ?? false,
        },
        { siteId: site, url, site: { url: built.url, articlePath: built.articlePath } },
      );
      if (!r.ok) return answer.failure(withCode(r.message, r.code));
      return answer.result({ ...r.report });
    },
  );
}
