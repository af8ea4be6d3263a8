// The site's articles, loaded from Quire at build time: every published article (the loader pages
// by itself), each one whole (html, author, dates…), checked against Quire's own article schema.
import { defineCollection } from 'astro:content';
import { quireLoader } from 'quire/astro';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
}

export const collections = {
  articles: defineCollection({ loader: quireLoader({ baseUrl: setting('QUIRE_API_URL'), key: setting('QUIRE_KEY') }) }),
};
