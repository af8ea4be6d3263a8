// What goes live or expires next, from a build's manifest: for `quire status` and the admin.
import { changeTimes, type ArticleWindow } from './windows.ts';

export interface UpcomingChange {
  site: string;
  slug: string;
  change: 'goes-live' | 'expires';
  /** UTC ISO instant. */
  at: string;
}

interface SiteListing {
  articles: Record<string, ArticleWindow>;
}

/** Every go-live and expiry after `nowMs`, soonest first (ties by site, then slug). */
export function upcomingChanges(sites: Record<string, SiteListing>, nowMs: number): UpcomingChange[] {
  const out: UpcomingChange[] = [];
  for (const [site, listing] of Object.entries(sites)) {
    for (const [slug, w] of Object.entries(listing.articles)) {
      if (!changeTimes([w], nowMs).length) continue;
      if (w.publishedAt && Date.parse(w.publishedAt) > nowMs)
        out.push({ site, slug, change: 'goes-live', at: w.publishedAt });
      if (w.expiresAt && Date.parse(w.expiresAt) > nowMs) out.push({ site, slug, change: 'expires', at: w.expiresAt });
    }
  }
  return out.sort(
    (a, b) => Date.parse(a.at) - Date.parse(b.at) || a.site.localeCompare(b.site) || a.slug.localeCompare(b.slug),
  );
}
