// Which articles a branch adds or changes (`quire preview --changed`): those whose source file the
// branch touched since it left its base (`git diff base...branch`, branch-repository.ts), as its
// preview has them; each new when the base's build has no article of that site and slug, else
// changed. Articles the base changed meanwhile are not the branch's, and are not listed.
import { visibilityAt } from '../schedule/windows.ts';
import type { Snapshot, SnapshotReader } from '../snapshot/snapshot-reader.ts';

export type ArticleState = 'draft' | 'scheduled' | 'published' | 'expired';

export interface BuiltArticle {
  site: string;
  slug: string;
  title: string;
  /** Its source as a path in the repository (`content/<site>/articles/x.md`). */
  file: string;
  state: ArticleState;
}

export interface ChangedArticle extends BuiltArticle {
  change: 'added' | 'changed';
}

const utf8 = new TextDecoder();

/** Every article of a build, published (scheduled, expired) and drafts, with its title; in the build's list order, drafts last. */
export async function builtArticles(reader: SnapshotReader, snapshot: Snapshot, now: number): Promise<BuiltArticle[]> {
  const articles: BuiltArticle[] = [];
  for (const [site, content] of snapshot.sites) {
    const m = snapshot.manifest.sites[site];
    if (!m) continue;
    for (const { item } of content.items) {
      const entry = m.articles[item.slug];
      if (!entry) continue;
      const visibility = visibilityAt(entry, now);
      articles.push({
        site,
        slug: item.slug,
        title: item.title,
        file: `content/${site}/${entry.file}`,
        state: visibility === 'live' ? 'published' : visibility,
      });
    }
    for (const [slug, draft] of await reader.readDrafts(snapshot, site)) {
      const { title } = JSON.parse(utf8.decode(draft.item)) as { title: string };
      articles.push({ site, slug, title, file: `content/${site}/${draft.entry.file}`, state: 'draft' });
    }
  }
  return articles;
}

/** The branch's articles whose file it touched (`touched`: paths in the repository), new or changed against `base`. */
export function changedArticles(
  branch: readonly BuiltArticle[],
  base: readonly BuiltArticle[],
  touched: ReadonlySet<string>,
): ChangedArticle[] {
  const inBase = new Set(base.map((a) => `${a.site}\0${a.slug}`));
  return branch
    .filter((a) => touched.has(a.file))
    .map((a) => ({ ...a, change: inBase.has(`${a.site}\0${a.slug}`) ? 'changed' : 'added' }));
}
