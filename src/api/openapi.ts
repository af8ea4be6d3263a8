// The OpenAPI 3.1 description of the Content API and the publish webhook (spec 2, 4, 5, 6).
import { ARTICLE_KINDS, MAX_SLUG_LENGTH, SLUG } from '../content/model.ts';
import contractSchemas from '../contract/openapi-schemas.json' with { type: 'json' };
import type { ApiErrorCode } from '../contract/error-codes.ts';
import { ARTICLE_EVENTS, REMOVAL_EVENTS } from '../contract/webhook-events.ts';
import { DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from './change-feed.ts';
import { MAX_LIMIT } from './list-query.ts';

/**
 * The version of the Content API's contract (SPEC part 9: the v1 description is 1.0.0), in the
 * OpenAPI document and the service document at `/`. Quire's own version is package.json's.
 */
export const API_VERSION = '1.0.0';

export function buildOpenApiDocument(publicUrl: string) {
  const errorResponse = (description: string, code: ApiErrorCode) => ({
    description,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: { error: { status: Number(description.slice(0, 3)) || 400, code, message: '…' } },
      },
    },
  });
  const cachingHeaders = {
    ETag: {
      description:
        'Strong validator of the body as sent; send it back in If-None-Match. A compressed answer has its own: the identity ETag with `-br` or `-gzip` before the closing quote. A 304 carries the ETag of the held answer it confirms (one whose coding the request accepts).',
      schema: { type: 'string' },
    },
    'Content-Encoding': {
      description:
        '`br` or `gzip` when the body is sent compressed, by `Accept-Encoding` (q-values honoured; br preferred when both weigh the same; identity without the header). Bodies under 1 KiB are sent in identity only.',
      schema: { type: 'string', enum: ['br', 'gzip'] },
    },
    'Cache-Control': {
      description:
        '`public, max-age=3600`: responses may be cached for one hour, or only until a scheduled go-live or expiry changes them (then `max-age` is the seconds left). Answers to a preview key: `private, no-store`.',
      schema: { type: 'string' },
    },
    Vary: {
      description: '`Accept-Encoding, Authorization`: a shared cache keeps responses apart per coding and per key.',
      schema: { type: 'string' },
    },
  };
  const unauthorized = {
    ...errorResponse('401 The key is missing, malformed, forged or not valid for any site.', 'API_KEY_INVALID'),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Bearer realm="quire"`' } },
  };
  const refPreviewKeyOnly = errorResponse(
    "403 A ref (a branch's preview) asked with the site key: previews are read with the preview key.",
    'REF_PREVIEW_KEY_ONLY',
  );
  const refNotFound = errorResponse('404 The ref names no branch previewed here.', 'REF_NOT_FOUND');
  const notAcceptable = errorResponse(
    '406 Accept-Encoding refuses identity and accepts no coding the answer has (br, gzip).',
    'ENCODING_NOT_ACCEPTABLE',
  );
  const compressionBusy = {
    ...errorResponse(
      '503 Accept-Encoding refuses identity, and the answer is made at request time (a filtered page, a preview) while the server compresses as many as it allows: try again after Retry-After, or accept identity.',
      'COMPRESSION_BUSY',
    ),
    headers: {
      'Retry-After': { schema: { type: 'string' }, description: '`1`: seconds to wait before trying again.' },
    },
  };
  const notModified = {
    description: '304 Not Modified: the If-None-Match validator still matches.',
    headers: cachingHeaders,
  };
  const security = [{ bearerKey: [] }, { queryKey: [] }];
  const webhookHeaders = [
    {
      name: 'Authorization',
      in: 'header',
      required: true,
      schema: { type: 'string' },
      description: '`Bearer <WEBHOOK_SECRET>`',
    },
    {
      name: 'X-Quire-Event',
      in: 'header',
      required: true,
      schema: { type: 'string', enum: [...ARTICLE_EVENTS, ...REMOVAL_EVENTS] },
      description:
        'Same as the body `event`. `unpublished` and `deleted` only to webhooks registered with extra events.',
    },
    {
      name: 'X-Quire-Signature',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      description: '`sha256=` + hex HMAC-SHA256 of the exact raw body under the webhook secret.',
    },
    { name: 'Content-Type', in: 'header', required: true, schema: { type: 'string', const: 'application/json' } },
  ];

  return {
    openapi: '3.1.0',
    info: {
      title: 'Quire Content API',
      version: API_VERSION,
      summary: "Read-only, keyed access to a site's published articles, and the publish webhook.",
      description:
        'Each site has one key, `pk_<site_id>.<signature>`. Send it as `Authorization: Bearer <key>` (recommended) or as `?key=<key>`; it scopes every result to its site. Only published articles are returned: an article scheduled (publishedAt still ahead) appears at that instant, and one past its expiresAt is withdrawn. A site\'s preview key, `pv_<site_id>.<signature>`, gets the same endpoints with drafts and scheduled articles too, each with `status` (and `expiresAt` where set), never cacheable (`Cache-Control: private, no-store`); keep it server-side. On a server that previews branches, the preview key with `?ref=<branch>` (or `Quire-Ref: <branch>`) reads that branch\'s preview instead; a site key with a ref is refused (403 `REF_PREVIEW_KEY_ONLY`). CORS is open. Responses may be cached for one hour (less when a scheduled change comes sooner); revalidate with `If-None-Match`. Every error has the body `{"error": {"status", "code", "message"}}`.',
    },
    servers: [{ url: `${publicUrl}/v1` }],
    security,
    paths: {
      '/articles': {
        get: {
          operationId: 'listArticles',
          summary: "List the site's published articles, newest first",
          description:
            'Without parameters the full list. `limit`/`offset` page through it, `kind` and `updatedSince` filter it; `total` is the number of articles that match the filters, before paging.',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
              description: 'At most this many articles.',
            },
            {
              name: 'offset',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 0, default: 0 },
              description: 'Skip this many articles.',
            },
            { name: 'kind', in: 'query', required: false, schema: { type: 'string', enum: [...ARTICLE_KINDS] } },
            {
              name: 'updatedSince',
              in: 'query',
              required: false,
              schema: { type: 'string', format: 'date-time' },
              description: 'Only articles whose `updatedAt` is at or after this time.',
            },
            { $ref: '#/components/parameters/Ref' },
            { $ref: '#/components/parameters/QuireRef' },
            { $ref: '#/components/parameters/IfNoneMatch' },
            { $ref: '#/components/parameters/AcceptEncoding' },
          ],
          responses: {
            '200': {
              description: 'The list.',
              headers: cachingHeaders,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ArticleList' } } },
            },
            '304': notModified,
            '400': errorResponse('400 A list parameter has an invalid value.', 'QUERY_INVALID'),
            '401': unauthorized,
            '403': refPreviewKeyOnly,
            '404': refNotFound,
            '406': notAcceptable,
            '503': compressionBusy,
          },
        },
      },
      '/articles/{slug}': {
        get: {
          operationId: 'getArticle',
          summary: 'One published article by slug',
          parameters: [
            {
              name: 'slug',
              in: 'path',
              required: true,
              schema: { type: 'string', pattern: SLUG.source, maxLength: MAX_SLUG_LENGTH },
            },
            { $ref: '#/components/parameters/Ref' },
            { $ref: '#/components/parameters/QuireRef' },
            { $ref: '#/components/parameters/IfNoneMatch' },
            { $ref: '#/components/parameters/AcceptEncoding' },
          ],
          responses: {
            '200': {
              description: 'The article.',
              headers: cachingHeaders,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Article' } } },
            },
            '304': notModified,
            '401': unauthorized,
            '403': refPreviewKeyOnly,
            '404': errorResponse(
              '404 No published article with this slug for the keyed site (ARTICLE_NOT_FOUND), or the ref names no branch previewed here (REF_NOT_FOUND).',
              'ARTICLE_NOT_FOUND',
            ),
            '406': notAcceptable,
            '503': compressionBusy,
          },
        },
      },
      '/changes': {
        get: {
          operationId: 'listChanges',
          summary:
            'What changed for the site since a cursor, oldest first (the pull complement to the publish webhook)',
          description:
            "Without `since`: the current state, every article as `published` with its list item, and a `cursor`. With `since` (an answer's `cursor`, passed back as it is): what publishes recorded after it, oldest first: `published` and `updated` carry the article's list item (as in GET /articles), `withdrawn` and `deleted` the slug and id only. Webhooks and this feed come from the same record of each publish (including a scheduled go-live or expiry at its instant), so they tell the same story; a webhook's `unpublished` is `withdrawn` here. `more: true` says more changes follow at once: ask again with the new `cursor`. A cursor older than the history kept (the newest 10,000 changes per site) answers 410 `CURSOR_EXPIRED`: resync from the current state. The feed is served by the process that publishes (`quire start`) and only to the site key (a preview key gets 403); answers are `Cache-Control: no-store`.",
          parameters: [
            {
              name: 'since',
              in: 'query',
              required: false,
              schema: { type: 'string', maxLength: 160 },
              description: 'The `cursor` of an earlier answer, for the same site.',
            },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: MAX_CHANGES_LIMIT, default: DEFAULT_CHANGES_LIMIT },
              description: 'At most this many changes (with `since`; the state without it comes whole).',
            },
          ],
          responses: {
            '200': {
              description: 'The changes and the cursor to continue from.',
              headers: {
                'Cache-Control': {
                  description: '`no-store`: an answer grows with every publish.',
                  schema: { type: 'string' },
                },
              },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ChangeFeed' } } },
            },
            '400': errorResponse(
              '400 `since` is not a cursor of this API for this site (CURSOR_INVALID), or `limit` is out of range (QUERY_INVALID).',
              'CURSOR_INVALID',
            ),
            '401': unauthorized,
            '403': errorResponse('403 A preview key: the feed tells only what is published.', 'CHANGES_SITE_KEY_ONLY'),
            '410': errorResponse(
              '410 The cursor is older than the history kept, or from a state store started over: resync from the current state.',
              'CURSOR_EXPIRED',
            ),
            '503': errorResponse(
              '503 This server has no change history to read (no readable state store).',
              'CHANGES_UNAVAILABLE',
            ),
          },
        },
      },
    },
    webhooks: {
      publish: {
        post: {
          operationId: 'receivePublishEvent',
          summary:
            "Sent to the site owner's HTTPS receiver when an article is published or updated (withdrawn or deleted too, to a webhook registered with extra events)",
          description:
            'Verify the Bearer secret or the signature (constant-time, after a length check), over the exact received bytes: re-serialized JSON has another signature. Upsert by `article.id`. Answer 401 when verification fails. Redirects are not followed: a 3xx counts as a failure. Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) are sent too.',
          parameters: webhookHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookPayload' } } },
          },
          responses: {
            '200': {
              description: 'Received. The optional reply says where the article landed.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookReply' } } },
            },
            '401': { description: 'Verification of the Bearer token or the signature failed.' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The site key, `pk_<site_id>.<signature>`, or its preview key, `pv_<site_id>.<signature>` (drafts and scheduled articles too, with `status`).',
        },
        queryKey: { type: 'apiKey', in: 'query', name: 'key', description: 'The site key as a query parameter.' },
      },
      parameters: {
        Ref: {
          name: 'ref',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9._/-]+$' },
          description:
            "A branch previewed by a server that follows a repository with `--previews`: the answer is that branch's preview (drafts included), for the site's preview key only (a site key gets 403 `REF_PREVIEW_KEY_ONLY`; a branch not previewed here is 404 `REF_NOT_FOUND`); `private, no-store`. The same as the `Quire-Ref` header.",
        },
        QuireRef: {
          name: 'Quire-Ref',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9._/-]+$' },
          description: 'The branch whose preview to read, as `?ref=` (both given must name the same branch).',
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            'ETags from earlier responses; one that matches an answer the request accepts answers 304 with that ETag.',
        },
        AcceptEncoding: {
          name: 'Accept-Encoding',
          in: 'header',
          required: false,
          schema: { type: 'string' },
          description:
            '`br` and `gzip` are served (stored compressed at build time; a body made at request time is compressed then, a few at a time: past that, identity, or 503 `COMPRESSION_BUSY` when identity is refused), with q-values, `*` and `identity;q=0` as in RFC 9110. Without it, identity.',
        },
      },
      // Generated from the contract (src/contract/json-schemas.ts); a test keeps the copy current.
      schemas: contractSchemas,
    },
  };
}
