import type { Flash } from './layout.tsx';
import { formatTime } from './layout.tsx';
import { SiteFrame } from './site-frame.tsx';

export interface ArticleRow {
  slug: string;
  title: string;
  status: 'published' | 'draft';
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  file: string;
}

export interface ProblemRow {
  place: string;
  message: string;
  code: string;
  severity: 'error' | 'warning';
}

export function ArticlesTab(props: { csrf: string; flash: Flash | null; site: { id: string; name: string }; articles: ArticleRow[]; problems: ProblemRow[] }) {
  const published = props.articles.filter((a) => a.status === 'published').length;
  return (
    <SiteFrame csrf={props.csrf} flash={props.flash} site={props.site} tab="articles">
      {props.problems.length ? (
        <section class="card" aria-labelledby="problems-h">
          <h2 id="problems-h">Build problems</h2>
          <p class="muted small">The last build of this site found these; the previous good output is still served.</p>
          <ul>
            {props.problems.map((p) => (
              <li>
                <span class={`badge ${p.severity === 'error' ? 'err' : 'warn'}`}>{p.severity}</span> <code>{p.place}</code> {p.message} <span class="muted small">[{p.code}]</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section class="card" aria-labelledby="articles-h">
        <h2 id="articles-h">
          Articles <span class="muted small">{published} published, {props.articles.length - published} draft{props.articles.length - published === 1 ? '' : 's'}</span>
        </h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col" class="opt">Kind</th>
                <th scope="col" class="opt">Published</th>
                <th scope="col">Updated</th>
                <th scope="col">API</th>
              </tr>
            </thead>
            <tbody>
              {props.articles.map((a) => (
                <tr>
                  <td>
                    {a.title}
                    <div class="muted small mono">{a.file}</div>
                  </td>
                  <td>{a.status === 'published' ? <span class="badge ok">published</span> : <span class="badge">draft</span>}</td>
                  <td class="opt">{a.kind}</td>
                  <td class="opt small">{formatTime(a.publishedAt)}</td>
                  <td class="small">{formatTime(a.updatedAt)}</td>
                  <td>
                    {a.status === 'published' ? (
                      <a href={`/admin/sites/${props.site.id}/articles/${a.slug}.json`}>JSON</a>
                    ) : (
                      <span class="muted small">not in the API</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </SiteFrame>
  );
}
