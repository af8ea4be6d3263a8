// Two built sites in a temp project, for API tests.
import { buildExport } from '../../src/compile/build.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

export const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function buildTwoSites(publicUrl = 'http://127.0.0.1'): Promise<TempProject> {
  const p = createTempProject();
  writeSite(p, 'alpha', 'name: Alpha Journal\nlang: en\nurl: https://alpha.example.com\n');
  writeSite(p, 'beta', 'name: Carnet Bêta\nlang: fr\nurl: https://beta.example.org\narticlePath: /articles/{slug}/\n');
  p.write('alpha/authors/ada.yaml', 'name: Ada Lovelace\nbio: Writes about engines.\nurl: https://ada.example.com\n');
  p.write('alpha/authors/bob.yaml', 'name: Bob\n');
  p.write('alpha/images/cover.png', PNG_BYTES);
  p.write(
    'alpha/articles/first-steps.md',
    article(
      {
        title: 'First steps',
        status: 'published',
        author: 'ada',
        image: 'cover.png',
        imageAlt: 'A cover',
        metaDescription: 'How to start.',
        related: '[second-look, a-draft, news-flash]',
        publishedAt: '2026-01-10T08:00:00Z',
        updatedAt: '2026-02-01T09:30:00Z',
      },
      'The first paragraph is here.\n\n![inline](../images/cover.png)\n',
    ),
  );
  p.write(
    'alpha/articles/second-look.md',
    article(
      {
        title: 'Second look',
        status: 'published',
        author: 'bob',
        publishedAt: '2026-03-01',
        updatedAt: '2026-03-02T00:00:00Z',
      },
      'Second body.\n',
    ),
  );
  p.write(
    'alpha/articles/news/news-flash.md',
    article(
      {
        title: 'News flash',
        status: 'published',
        kind: 'news',
        sourceUrl: 'https://source.example.net/x',
        publishedAt: '2026-04-01T12:00:00Z',
        updatedAt: '2026-04-01T12:00:00Z',
      },
      'Breaking.\n',
    ),
  );
  p.write(
    'alpha/articles/a-draft.md',
    article({ title: 'A draft', publishedAt: '2026-05-01T00:00:00Z', updatedAt: '2026-05-01T00:00:00Z' }, 'Not yet.\n'),
  );
  p.write(
    'beta/articles/bonjour.md',
    article(
      { title: 'Bonjour', status: 'published', publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' },
      'Salut.\n',
    ),
  );
  const result = await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl });
  if (!result.ok) throw new Error(`fixture build failed: ${JSON.stringify(result.issues)}`);
  return p;
}
