/** An article's page on this site: the URL of its canonical link and sitemap entry. */
export const articleUrl = (slug: string, site: URL | undefined) =>
  new URL(`/blog/${encodeURIComponent(slug)}/`, site).href;
