// The sitemap: every article's page with <lastmod> equal to its `updatedAt`, as Quire's
// `verify_integration` checks it. Announced in robots.txt.
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { articleUrl } from '../article-url';

const xml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export const GET: APIRoute = async ({ site }) => {
  const articles = await getCollection('articles');
  const urls = articles.map(({ data }) => {
    const lastmod = data.updatedAt ? `<lastmod>${data.updatedAt}</lastmod>` : '';
    return `  <url><loc>${xml(articleUrl(data.slug, site))}</loc>${lastmod}</url>`;
  });
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
  return new Response(body, { headers: { 'content-type': 'application/xml' } });
};
