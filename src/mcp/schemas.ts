// Output schemas of the MCP tools (zod) that are not the Content API's: those come from the
// contract (src/contract/), so list_articles and get_article answer in the API's shapes.
import { z } from 'zod';
import { orNull } from '../contract/or-null.ts';
import { RULE_IDS } from '../integration/conformance/report.ts';

const nullableString = orNull(z.string());

export const SiteShape = z.object({
  id: z.string(),
  name: z.string(),
  lang: z.string(),
  url: z.string(),
  articlePath: z.string(),
  published: z.number().int(),
  webhook: orNull(z.object({ url: z.string(), disabled: z.boolean() })),
});

export const CheckShape = z.object({
  id: z.enum(['sitemap', 'canonical', 'html', 'byline']),
  status: z.enum(['pass', 'warn', 'fail', 'error', 'skipped']),
  code: z.string(),
  message: z.string(),
  expected: nullableString,
  actual: nullableString,
  evidence: nullableString,
  fix: nullableString,
});

export const VerifyReportShape = z.object({
  ok: z.boolean(),
  summary: z.string(),
  siteId: z.string(),
  baseUrl: z.string(),
  articles: z.array(
    z.object({
      slug: z.string(),
      url: z.string(),
      finalUrl: nullableString,
      redirects: z.array(z.string()),
      checks: z.array(CheckShape),
    }),
  ),
});

export const TestWebhookShape = z.object({
  sent: z.boolean(),
  ok: z.boolean(),
  code: z.string(),
  message: z.string(),
  deliveryId: nullableString,
  slug: nullableString,
  status: orNull(z.number().int()),
  durationMs: orNull(z.number()),
  replyUrl: nullableString,
});

export const ConformanceRuleShape = z.object({
  id: z.enum(RULE_IDS),
  ok: z.boolean().describe('False only when the rule failed'),
  warning: z.boolean().optional().describe('The receiver works, but could do better, or the rule could not be seen'),
  code: z.string().optional().describe('The problem code (docs/problem-codes.md)'),
  detail: z.string(),
  fix: z.string().optional(),
});

export const ConformanceReportShape = z.object({
  ok: z.boolean().describe('No rule failed (warnings allowed)'),
  summary: z.string(),
  site: z.string(),
  webhookUrl: z.string(),
  testSlug: z.string(),
  verifies: orNull(z.enum(['signature', 'both', 'bearer', 'either', 'neither'])),
  rules: z.array(ConformanceRuleShape),
  cleanup: z.string(),
});

/** A delivery's page check (`verification` of `quire deliveries --json`); null when it has none. */
export const VerificationShape = z.object({
  state: z.enum(['pending', 'live', 'render_problem', 'unverified', 'off']),
  code: z.string().optional(),
  message: z.string().optional(),
  fix: z.string().optional(),
  url: z.string().optional(),
  checks: z
    .array(
      z.object({
        id: z.string(),
        status: z.string(),
        code: z.string(),
        message: z.string(),
        expected: nullableString,
        actual: nullableString,
        fix: nullableString,
      }),
    )
    .optional(),
  checkedAt: z.string().optional(),
  nextCheckAt: z.string().optional(),
});

/** One delivery attempt as `quire deliveries --json` prints it. */
export const DeliveryAttemptShape = z.object({
  time: z.string(),
  delivery: z.string(),
  site: z.string(),
  event: z.string(),
  slug: z.string(),
  origin: z.string(),
  state: z.string(),
  status: orNull(z.number().int()),
  durationMs: z.number(),
  error: nullableString,
  errorKind: nullableString,
  replyUrl: nullableString,
  replyId: nullableString,
  verification: orNull(VerificationShape),
});

/** An article delivered but not live and right (`quire deliveries --problems --json`). */
export const PageProblemShape = z.object({
  delivery: z.string(),
  site: z.string(),
  event: z.string(),
  slug: z.string(),
  deliveredAt: nullableString,
  verification: VerificationShape,
});
