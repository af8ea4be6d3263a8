// The MCP tool server: verify_integration, the deliveries with their live page checks, and the
// helpers a site owner needs to wire a site up.
// Every tool is backed by the same code as the API, CLI and web app. Results are returned as
// structuredContent and, for clients that show only text, as JSON text too.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseBody, type Snapshot } from '../snapshot/snapshot-reader.ts';
import { verifySite } from '../integration/verify-site.ts';
import type { Keyring } from '../keys/api-keys.ts';
import type { SafeClient } from '../net/safe-client.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { testWebhook } from '../delivery/test-connection.ts';
import { ArticleListSchema, ArticleSchema, type ArticleList } from '../contract/article.ts';
import { attemptJson, pageProblemJson } from '../delivery/attempt-json.ts';
import { registerConformanceTool } from './conformance-tool.ts';
import { DeliveryAttemptShape, PageProblemShape, SiteShape, TestWebhookShape, VerifyReportShape } from './schemas.ts';

export interface McpDeps {
  snapshot: () => Snapshot | null;
  keyring: Keyring;
  publicUrl: string;
  distDir: string;
  publishing: DeliveryDeps;
  /** Fetches the receiving site's pages for verify_integration (http or https, public hosts). */
  verifyClient: SafeClient;
  /** QUIRE_ALLOW_PRIVATE_TARGETS: a loopback or private receiver may be checked (development only). */
  allowPrivateTargets?: boolean;
  version: string;
}

const result = <T extends Record<string, unknown>>(data: T): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data, null, 2) }],
  structuredContent: data,
});
const failure = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

const siteArg = z.string().describe('Site id, as in content/<site>/ (see list_sites)');

export function buildMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer({ name: 'quire', version: deps.version });
  const siteOf = (id: string) => deps.snapshot()?.sites.get(id) ?? null;
  const unknownSite = (id: string) =>
    failure(
      `no site "${id}" (sites: ${[...(deps.snapshot()?.sites.keys() ?? [])].join(', ') || 'none'}; run \`npm run build\` if one is missing)`,
    );

  server.registerTool(
    'list_sites',
    {
      title: 'List sites',
      description:
        'The sites Quire publishes: id, name, language, the URL of the site that renders them, article path, published count and webhook.',
      inputSchema: {},
      outputSchema: { sites: z.array(SiteShape) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const snap = deps.snapshot();
      const sites = [];
      for (const s of snap?.sites.values() ?? []) {
        const m = snap!.manifest.sites[s.id]!;
        const hook = await deps.publishing.store.webhooks.get(s.id);
        sites.push({
          id: s.id,
          name: s.summary.name,
          lang: s.summary.lang,
          url: m.url,
          articlePath: m.articlePath,
          published: s.articles.size,
          webhook: hook ? { url: hook.url, disabled: hook.disabledAt !== null } : null,
        });
      }
      return result({ sites });
    },
  );

  server.registerTool(
    'get_api_key',
    {
      title: "Get a site's API key",
      description:
        "The Content API base URL and the site's key (pk_<site>.<signature>), with a ready curl command. The key reads published articles only.",
      inputSchema: { site: siteArg },
      outputSchema: { site: z.string(), apiBase: z.string(), key: z.string(), curl: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ site }) => {
      if (!siteOf(site)) return unknownSite(site);
      const key = deps.keyring.keyFor(site);
      const apiBase = `${deps.publicUrl}/v1`;
      return result({ site, apiBase, key, curl: `curl -H "Authorization: Bearer ${key}" ${apiBase}/articles` });
    },
  );

  server.registerTool(
    'list_articles',
    {
      title: 'List published articles',
      description: 'What GET /v1/articles returns for the site: {site, total, articles}, newest first.',
      inputSchema: {
        site: siteArg,
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many articles (default: all)'),
      },
      outputSchema: ArticleListSchema.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ site, limit }) => {
      const s = siteOf(site);
      if (!s) return unknownSite(site);
      const list = parseBody(s.list) as ArticleList;
      return result({ ...list, articles: limit ? list.articles.slice(0, limit) : list.articles });
    },
  );

  server.registerTool(
    'get_article',
    {
      title: 'Get an article',
      description:
        'What GET /v1/articles/{slug} returns: the full article with html, markdown, author and related articles.',
      inputSchema: { site: siteArg, slug: z.string().describe('The article slug') },
      outputSchema: ArticleSchema.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ site, slug }) => {
      const s = siteOf(site);
      if (!s) return unknownSite(site);
      const body = s.articles.get(slug);
      if (!body) return failure(`no published article "${slug}" on ${site}`);
      return result(parseBody(body) as Record<string, unknown>);
    },
  );

  server.registerTool(
    'test_webhook',
    {
      title: "Test the site's webhook",
      description:
        "Sends the site's most recent published article to its registered webhook as a signed `updated` event (an idempotent upsert) and explains the result.",
      inputSchema: { site: siteArg },
      outputSchema: TestWebhookShape.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ site }) => {
      if (!siteOf(site)) return unknownSite(site);
      const r = await testWebhook({ ...deps.publishing, distDir: deps.distDir }, site);
      if (!r.sent)
        return result({
          sent: false,
          ok: false,
          code: r.code,
          message: r.message,
          deliveryId: null,
          slug: null,
          status: null,
          durationMs: null,
          replyUrl: null,
        });
      return result({
        sent: true,
        ok: r.explanation.ok,
        code: r.explanation.code,
        message: r.explanation.message,
        deliveryId: r.deliveryId,
        slug: r.slug,
        status: r.attempt.status,
        durationMs: r.attempt.durationMs,
        replyUrl: r.attempt.replyUrl,
      });
    },
  );

  server.registerTool(
    'list_deliveries',
    {
      title: "List a site's deliveries",
      description:
        "What `quire deliveries --json` prints: each delivery attempt, newest first, with its delivery's check of the article's live page after it was acknowledged (`verification.state`: live, render_problem with the failing check's code and fix, unverified, pending, off). With `problems`, only the articles delivered but not live and right.",
      inputSchema: {
        site: siteArg,
        problems: z
          .boolean()
          .optional()
          .describe("Only the site's articles whose last page check found a problem or could not tell"),
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many (default 50)'),
      },
      outputSchema: { attempts: z.array(DeliveryAttemptShape), problems: z.array(PageProblemShape) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ site, problems, limit }) => {
      const { store } = deps.publishing;
      if (!siteOf(site) && !(await store.outbox.list({ siteId: site, limit: 1 })).length) return unknownSite(site);
      if (problems)
        return result({
          attempts: [],
          problems: (await store.pageChecks.problems(site, limit ?? 50)).map((p) => pageProblemJson(site, p)),
        });
      const log = await store.outbox.attemptLog({ siteId: site, limit: limit ?? 50 });
      return result({ attempts: log.map(attemptJson), problems: [] });
    },
  );

  server.registerTool(
    'verify_integration',
    {
      title: 'Verify a receiving site',
      description:
        "Checks that the site renders Quire's articles properly: (1) sitemap lists each article URL with lastmod = updatedAt, (2) the page has one rel=canonical pointing at itself, (3) the article html is injected unmodified, (4) a visible byline, linked to the author's url when set. Each failure comes with a code and a fix.",
      inputSchema: {
        site: siteArg,
        baseUrl: z
          .string()
          .url()
          .optional()
          .describe(
            'Base URL of the receiving site, http or https (default: url in site.yaml); the sitemap and every page are read from it',
          ),
        slugs: z
          .array(z.string())
          .max(200)
          .optional()
          .describe('Articles to check (default: the published ones, up to 25)'),
      },
      outputSchema: VerifyReportShape.shape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ site, baseUrl, slugs }) => {
      const r = await verifySite(
        { snapshot: deps.snapshot(), outbox: deps.publishing.store.outbox, client: deps.verifyClient },
        { siteId: site, baseUrl, slugs },
      );
      if (!r.ok) return failure(r.message);
      const summary = r.capped
        ? `${r.report.summary} (first 25 articles; pass slugs to check others)`
        : r.report.summary;
      return result({ ...r.report, summary });
    },
  );

  registerConformanceTool(server, deps, { site: siteArg, result, failure, unknownSite });

  return server;
}
