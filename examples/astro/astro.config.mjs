// @ts-check
import { defineConfig } from 'astro/config';

export default defineConfig({
  // This site's public address: canonical links and the sitemap are absolute URLs on it.
  site: process.env.SITE_URL,
  // Article pages are /blog/<slug>/ (a folder with index.html): the URL to set as `articlePath`
  // in the site's site.yaml in Quire, so that `quire verify` looks for them there.
  trailingSlash: 'always',
});
