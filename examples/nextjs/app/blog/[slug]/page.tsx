// One article: `html` injected as received (Quire sanitized it), a self-canonical link, and the
// byline from `author`. Cached under the article's tag; pages of articles published after the
// build are rendered on their first request.
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { articlePath, articleTag, LIST_TAG, quire, siteUrl } from '../../../lib/quire';

type Props = { params: Promise<{ slug: string }> };

export async function generateStaticParams() {
  const params = [];
  for await (const item of quire([LIST_TAG]).articles()) params.push({ slug: item.slug });
  return params;
}

const load = (slug: string) => quire([articleTag(slug)]).getArticle(slug);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const article = await load((await params).slug);
  if (!article) return {};
  return {
    title: article.title,
    description: article.metaDescription,
    alternates: { canonical: siteUrl(articlePath(article.slug)) },
  };
}

export default async function ArticlePage({ params }: Props) {
  const article = await load((await params).slug);
  if (!article) notFound();
  const { author } = article;
  return (
    <article lang={article.lang}>
      <h1>{article.title}</h1>
      {author && <p className="byline">By {author.url ? <a href={author.url}>{author.name}</a> : author.name}</p>}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: Quire's html is sanitized; the contract says to inject it as received */}
      <div dangerouslySetInnerHTML={{ __html: article.html }} />
    </article>
  );
}
