// `quire check`: every check a build makes (loading and parsing, the planted-repository scan,
// dates from git where a check needs them, render-time and cross-article checks), run as a build
// that writes nothing (buildExport with `write: false`: not dist/, not the state dir), and the
// folder reports for CI name files from: the repository's root.
import { buildExport, type BuildSettings } from '../compile/build.ts';
import type { ContentIssue } from '../content/issues.ts';
import { locateContentRepository, workTreeAbove } from '../git/repository.ts';

export interface ContentCheck {
  /** Every problem, in file order. */
  issues: ContentIssue[];
  /** The work tree of the content's repository; null outside one. */
  repositoryRoot: string | null;
  articles: number;
  sites: number;
}

export async function checkContent(settings: BuildSettings): Promise<ContentCheck> {
  const repository = locateContentRepository(settings.contentDir);
  const result = await buildExport(settings, undefined, { write: false, repository });
  await result.cleanup();
  const located = (await repository).repository;
  return {
    issues: result.issues,
    // Also when git may not run on it (a planted repository): the files are still in that tree.
    repositoryRoot: located?.workTree ?? workTreeAbove(settings.contentDir),
    articles: result.stats.articles,
    sites: result.loaded.length,
  };
}
