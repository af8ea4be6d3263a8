// /llms.txt in the llmstxt.org format: a title, a summary, then sections of links.
export function buildLlmsTxt(publicUrl: string): string {
  return `# Quire Content API

> A read-only JSON API over one site's published articles: title, meta description, language, image, sanitized HTML, raw Markdown, author, related articles and dates. Every request needs the site's key; the key scopes every result to its site.

Authenticate with the site key \`pk_<site_id>.<signature>\`, sent as \`Authorization: Bearer <key>\` (recommended) or as the query parameter \`?key=<key>\`. A missing or invalid key answers 401. Responses may be cached for one hour (less when a scheduled go-live or expiry comes sooner) and carry a strong ETag; send \`If-None-Match\` to get 304. Send \`Accept-Encoding: br\` or \`gzip\` to get the body compressed (\`Content-Encoding\` says which; the ETag then ends in \`-br"\` or \`-gzip"\`); answers carry \`Vary: Accept-Encoding, Authorization\`. A scheduled article (publishedAt still ahead) is served from that instant; one past its expiresAt is withdrawn. The site's preview key \`pv_<site_id>.<signature>\` reads the same endpoints with drafts and scheduled articles too, each with \`status\` ("draft", "scheduled" or "published") and \`expiresAt\` where set; its answers are \`Cache-Control: private, no-store\`. Keep a preview key on a server, never in a page. Errors have the body \`{"error": {"status", "code", "message"}}\`. Inject \`html\` as received: it is already sanitized.

## Endpoints

- [GET /v1/articles](${publicUrl}/v1/articles): \`{site: {name, lang}, total, articles: [...]}\`, newest first. Optional \`limit\`, \`offset\`, \`kind\`, \`updatedSince\`.
- [GET /v1/articles/{slug}](${publicUrl}/v1/articles/{slug}): one article with \`html\`, \`markdown\`, \`kind\`, \`sourceUrl\`, \`related\` and \`author\` (or null). 404 when no published article has the slug.
- [GET /v1/changes](${publicUrl}/v1/changes): what changed for the site, oldest first: \`{changes: [{type, slug, id, at, article?}], cursor, more}\`. Without \`since\`: the current state (every article as \`published\`) and a cursor; with \`since=<cursor>\`: the changes after it (\`published\`/\`updated\` with the article's list item, \`withdrawn\`/\`deleted\` with slug and id), at most \`limit\` (default 500, max 1000); \`more: true\`: ask again with the new cursor. The same story as the webhooks. A cursor older than the history kept answers 410 \`CURSOR_EXPIRED\`: resync without \`since\`. Site key only (a preview key gets 403); \`Cache-Control: no-store\`.

## Docs

- [OpenAPI 3.1 document](${publicUrl}/openapi.json): every field with its nullability, the error shape, and the publish webhook (payload and headers).

## Optional

- [Publish webhook](${publicUrl}/openapi.json): on publish or update, a signed POST (\`X-Quire-Event\`, \`X-Quire-Signature: sha256=<hex HMAC of the raw body>\`, \`Authorization: Bearer <secret>\`) to the site's HTTPS receiver; upsert by \`article.id\`.
`;
}
