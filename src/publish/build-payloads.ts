// What publishing reads of a build: what each site serves at an instant, the body of a webhook
// event and the list item the change log keeps (read from dist/ and checked against the manifest,
// so a concurrent rebuild is caught, not sent), and the build as the feed state keeps it. Used by
// `publish` and by a running server's go-lives and expiries (served-changes.ts, window-changes.ts).
import { webhookArticleJson, webhookBody, type ArticleBody } from '../articles/shapes.ts';
import { articleUrl, DEFAULT_VERIFY_DELAY_MS } from '../content/model.ts';
import { PayloadChangedError, readArticleBody, readListItems } from '../export/export-files.ts';
import type { Manifest, ManifestSite } from '../export/manifest.ts';
import { ProblemError } from '../problems/problem.ts';
import { isLiveAt } from '../schedule/windows.ts';
import type { ArticleChange, FeedBuild, PageCheckRequest, RecordedChange } from '../store/state-store.ts';
import type { PlannedEvent } from './plan-events.ts';

/** The build output changed while publishing (another build ran): run publish again. */
export class PublishError extends ProblemError<'PUBLISH_INTERRUPTED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PUBLISH_INTERRUPTED', message, options);
    this.name = 'PublishError';
  }
}

/** The build a manifest describes, as the feed state keeps it (see FeedBuild). */
export const feedBuildOf = (manifest: Manifest): FeedBuild => ({
  id: manifest.buildId,
  builtAt: Date.parse(manifest.builtAt),
});

/**
 * What a site serves at `nowMs`: its live articles' payload hashes, and the slugs that exist but
 * are not served (drafts, and published articles still scheduled or already expired), which a
 * receiver hears of as withdrawn rather than deleted. A scheduled article is announced when a
 * publish runs after it went live (the server runs one at each go-live; see schedule/).
 */
export function servedAt(
  site: ManifestSite,
  nowMs: number,
  draftSlugs: Iterable<string>,
): { current: Map<string, string>; withdrawn: Set<string> } {
  const current = new Map<string, string>();
  const withdrawn = new Set(draftSlugs);
  for (const slug in site.articles) {
    const entry = site.articles[slug]!;
    if (isLiveAt(entry, nowMs)) current.set(slug, entry.payloadHash);
    else withdrawn.add(slug);
  }
  return { current, withdrawn };
}

/** The bytes of a webhook event of the build. */
export function readBody(
  distDir: string,
  manifest: Manifest,
  siteId: string,
  slug: string,
  event: PlannedEvent['event'],
): Buffer {
  return readDelivery(distDir, manifest, siteId, slug, event).body;
}

/**
 * A webhook event of the build as it is queued: its bytes, and what the article's live page must
 * show once the delivery is acknowledged (null for a removal: there is no page to check).
 */
export function readDelivery(
  distDir: string,
  manifest: Manifest,
  siteId: string,
  slug: string,
  event: PlannedEvent['event'],
): { body: Buffer; pageCheck: PageCheckRequest } {
  if (event === 'unpublished' || event === 'deleted') {
    return { body: Buffer.from(webhookBody(event, JSON.stringify({ id: slug, slug }))), pageCheck: null };
  }
  const site = manifest.sites[siteId]!;
  let article: ArticleBody;
  try {
    article = JSON.parse(readArticleBody(distDir, siteId, slug, site.articles[slug]!.bodyHash)) as ArticleBody;
  } catch (err) {
    if (err instanceof PayloadChangedError)
      throw new PublishError(`${err.file} changed while publishing (is another build running?); run publish again`, {
        cause: err,
      });
    throw err;
  }
  return { body: Buffer.from(webhookBody(event, webhookArticleJson(article))), pageCheck: pageCheckOf(site, article) };
}

/** What the article's page must show, from the build; 'off' when its site turned the checks off. */
function pageCheckOf(site: ManifestSite, article: ArticleBody): PageCheckRequest {
  const delayMs = site.verifyAfterDelivery ?? DEFAULT_VERIFY_DELAY_MS;
  if (delayMs === false) return 'off';
  return {
    siteUrl: site.url,
    articleUrl: articleUrl(site, article.slug),
    updatedAt: article.updatedAt,
    author: article.author ? { name: article.author.name, url: article.author.url } : null,
    delayMs,
  };
}

/**
 * The changes with what the change log keeps of each published one: its item of the site's list
 * (JSON text, as the build wrote it into articles.json), from the list the manifest names.
 */
export function withListItems(
  distDir: string,
  manifest: Manifest,
  siteId: string,
  changes: ArticleChange[],
): RecordedChange[] {
  if (!changes.some((c) => c.state === 'published')) return changes.map((c) => ({ ...c, item: null }));
  let items: ReturnType<typeof readListItems>;
  try {
    items = readListItems(distDir, siteId, manifest.sites[siteId]!.listHash);
  } catch (err) {
    if (err instanceof PayloadChangedError)
      throw new PublishError(`${err.file} changed while publishing (is another build running?); run publish again`, {
        cause: err,
      });
    throw err;
  }
  return changes.map((c) => {
    if (c.state !== 'published') return { ...c, item: null };
    const item = items?.get(c.slug);
    if (!item)
      throw new PublishError(
        `the list of site "${siteId}" has no item for "${c.slug}" (is another build running?); run publish again`,
      );
    return { ...c, item: Buffer.from(item).toString('utf8') };
  });
}
