// The Articles tab's facts from what the last build kept (ContentFacts): every article's front
// matter as that build loaded it (drafts are not in dist/) and its problems, grouped by file.
import path from 'node:path';
import { formatPlace, type ContentIssue } from '../content/issues.ts';
import { printable } from '../text/printable.ts';
import type { LoadedSite } from '../content/load-content.ts';
import type { ArticleFacts, ArticleProblem } from './article-status.ts';

export function articleFactsFromContent(
  contentDir: string,
  siteId: string,
  loaded: LoadedSite | undefined,
  issues: readonly ContentIssue[],
): { articles: ArticleFacts[]; siteProblems: ArticleProblem[] } {
  // Places read `content/<site>/…`, as the CLI prints them from the project folder.
  const root = path.dirname(path.resolve(contentDir));
  const siteDir = path.join(path.resolve(contentDir), siteId) + path.sep;
  const articlesDir = path.join(siteDir, 'articles') + path.sep;
  const shown = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const byFile = new Map<string, ArticleProblem[]>();
  const siteProblems: ArticleProblem[] = [];
  const seen = new Set<string>();
  for (const i of issues) {
    const key = `${i.file}\0${i.line}\0${i.column}\0${i.code}`;
    if (!i.file.startsWith(siteDir) || seen.has(key)) continue;
    seen.add(key);
    // As the CLI prints them: places relative, control characters quoted content may hold made visible.
    const problem: ArticleProblem = {
      code: i.code,
      message: printable(i.message),
      place: formatPlace(i, root),
      other: i.other ? formatPlace(i.other, root) : null,
      hint: i.hint ? printable(i.hint) : null,
      severity: i.severity,
    };
    if (!i.file.startsWith(articlesDir)) siteProblems.push(problem);
    else byFile.set(i.file, [...(byFile.get(i.file) ?? []), problem]);
  }
  const articles: ArticleFacts[] = (loaded?.articles ?? []).map((a) => ({
    file: shown(a.file),
    slug: a.meta.slug,
    title: a.meta.title,
    wanted: a.meta.status,
    kind: a.meta.kind,
    publishedAt: a.meta.publishedAt,
    updatedAt: a.meta.updatedAt,
    expiresAt: a.meta.expiresAt,
    problems: byFile.get(a.file) ?? [],
  }));
  // A file whose front matter could not be read is not among the loaded articles: it still has a row.
  const loadedFiles = new Set((loaded?.articles ?? []).map((a) => a.file));
  for (const [file, problems] of byFile) {
    if (!loadedFiles.has(file))
      articles.push({
        file: shown(file),
        slug: null,
        title: null,
        wanted: null,
        kind: null,
        publishedAt: null,
        updatedAt: null,
        expiresAt: null,
        problems,
      });
  }
  return { articles, siteProblems };
}
