import type { ArticleProblem, ArticleStatusRow } from '../article-status.ts';
import { countStates } from '../article-status.ts';
import type { Flash } from './layout.tsx';
import { formatTime } from './layout.tsx';
import { SiteFrame } from './site-frame.tsx';
import { formatInZone, formatUtc } from '../../schedule/zone-time.ts';

function ProblemList(props: { problems: ArticleProblem[] }) {
  return (
    <ul class="problems">
      {props.problems.map((p) => (
        <li>
          <span class={`badge ${p.severity === 'error' ? 'err' : 'warn'}`}>{p.severity}</span>{' '}
          <code class="place">{p.place}</code> {p.message}
          {p.other ? (
            <>
              {' '}
              (the other: <code class="place">{p.other}</code>)
            </>
          ) : null}{' '}
          <span class="muted small">[{p.code}]</span>
          {p.hint ? <div class="hint">hint: {p.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}

const STATE_BADGE = {
  published: 'badge ok',
  scheduled: 'badge warn',
  expired: 'badge',
  draft: 'badge',
  broken: 'badge err',
} as const;

/** An instant in UTC and, when the site has another zone, in the site's time. */
function When(props: { at: string; timezone: string }) {
  const ms = Date.parse(props.at);
  return (
    <>
      <time datetime={props.at}>{formatUtc(ms)}</time>
      {props.timezone === 'UTC' ? null : (
        <span class="muted">
          {' '}
          · {formatInZone(ms, props.timezone)} ({props.timezone})
        </span>
      )}
    </>
  );
}

/** When a scheduled article goes live, when a published one expires, when an expired one did. */
function windowNote(a: ArticleStatusRow, timezone: string) {
  if (a.state === 'scheduled' && a.publishedAt)
    return (
      <div class="small">
        goes live <When at={a.publishedAt} timezone={timezone} />
      </div>
    );
  if ((a.state === 'published' || a.state === 'scheduled') && a.expiresAt)
    return (
      <div class="small">
        expires <When at={a.expiresAt} timezone={timezone} />
      </div>
    );
  if (a.state === 'expired' && a.expiresAt)
    return (
      <div class="small">
        expired <When at={a.expiresAt} timezone={timezone} />
      </div>
    );
  return null;
}

function apiCell(siteId: string, a: ArticleStatusRow, ref: string | null) {
  if (a.live && a.slug !== null) {
    const query = ref === null ? '' : `?ref=${encodeURIComponent(ref)}`;
    const link = <a href={`/admin/sites/${siteId}/articles/${a.slug}.json${query}`}>JSON</a>;
    return a.state === 'published' ? (
      link
    ) : (
      <span class="small">
        {link} <span class="muted">(the last good build)</span>
      </span>
    );
  }
  if (a.state === 'published') return <span class="muted small">not served yet: not in the last good build</span>;
  if (a.state === 'scheduled') return <span class="muted small">not served until it goes live</span>;
  if (a.state === 'expired') return <span class="muted small">withdrawn: past its expiry</span>;
  return <span class="muted small">not in the API</span>;
}

/** The branches the tab can show: the followed one and each previewed one, and the one shown (null: the followed). */
export interface BranchChoice {
  followed: string | null;
  list: { branch: string; built: string | null }[];
  shown: { branch: string; built: string | null } | null;
}

/** A read-only choice (a GET form: it changes nothing, so it carries no CSRF token). */
function BranchSelector(props: { siteId: string; branches: BranchChoice }) {
  const { followed, list, shown } = props.branches;
  return (
    <section class="card" aria-labelledby="branch-h">
      <h2 id="branch-h">Branch</h2>
      <form method="get" action={`/admin/sites/${props.siteId}/articles`}>
        <label for="ref">Show the articles of</label>{' '}
        <select id="ref" name="ref">
          <option value="" selected={shown === null}>
            {followed ?? 'the followed branch'} (followed: what is published)
          </option>
          {list.map((b) => (
            <option value={b.branch} selected={shown?.branch === b.branch}>
              {b.branch} (preview{b.built ? `, ${b.built.slice(0, 12)}` : ': no good build yet'})
            </option>
          ))}
        </select>{' '}
        <button type="submit">Show</button>
      </form>
      {shown ? (
        <p class="muted small">
          The preview of the branch <code>{shown.branch}</code>
          {shown.built ? (
            <>
              {' '}
              at commit <code>{shown.built.slice(0, 12)}</code>
            </>
          ) : (
            ': no commit of it has built yet'
          )}
          . Read-only: nothing of it is published; preview keys read it with <code>?ref={shown.branch}</code>.
        </p>
      ) : list.length ? null : (
        <p class="muted small">No branch is previewed now: push one whose name matches --previews.</p>
      )}
    </section>
  );
}

export function ArticlesTab(props: {
  csrf: string;
  flash: Flash | null;
  site: { id: string; name: string; timezone: string };
  articles: ArticleStatusRow[];
  siteProblems: ArticleProblem[];
  /** Branch previews, when the server makes them; null: none. */
  branches?: BranchChoice | null;
}) {
  const counts = countStates(props.articles);
  const ref = props.branches?.shown?.branch ?? null;
  return (
    <SiteFrame csrf={props.csrf} flash={props.flash} site={props.site} tab="articles">
      {props.branches ? <BranchSelector siteId={props.site.id} branches={props.branches} /> : null}
      {props.siteProblems.length ? (
        <section class="card" aria-labelledby="problems-h">
          <h2 id="problems-h">Build problems</h2>
          <p class="muted small">
            The last build of this site found these outside its articles; the previous good output is still served.
          </p>
          <ProblemList problems={props.siteProblems} />
        </section>
      ) : null}
      <section class="card" aria-labelledby="articles-h">
        <h2 id="articles-h">
          Articles{' '}
          <span class="muted small">
            {counts.published} published, {counts.draft} draft{counts.draft === 1 ? '' : 's'}
            {counts.scheduled ? `, ${counts.scheduled} scheduled` : ''}
            {counts.expired ? `, ${counts.expired} expired` : ''}
            {counts.broken ? `, ${counts.broken} broken` : ''}
          </span>
        </h2>
        {counts.broken ? (
          <p class="muted small">
            A broken article has errors, so the build stops; the previous good output is still served. Fix each problem
            below.
          </p>
        ) : null}
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col" class="opt">
                  Kind
                </th>
                <th scope="col" class="opt">
                  Published
                </th>
                <th scope="col">Updated</th>
                <th scope="col">API</th>
              </tr>
            </thead>
            <tbody>
              {props.articles.map((a) => (
                <tr class={a.state === 'broken' ? 'broken' : undefined}>
                  <td data-label="Title">
                    {a.title}
                    <div class="muted small mono">{a.file}</div>
                    {a.problems.length ? <ProblemList problems={a.problems} /> : null}
                  </td>
                  <td data-label="Status">
                    <span class={STATE_BADGE[a.state]}>{a.state}</span>
                    {windowNote(a, props.site.timezone)}
                    {a.previewLink ? (
                      <div class="small">
                        <a href={a.previewLink} target="_blank" rel="noopener noreferrer">
                          Preview on the site
                        </a>
                      </div>
                    ) : null}
                  </td>
                  <td class="opt" data-label="Kind">
                    {a.kind ?? '—'}
                  </td>
                  <td class="opt small" data-label="Published">
                    {formatTime(a.publishedAt)}
                  </td>
                  <td class="small" data-label="Updated">
                    {formatTime(a.updatedAt)}
                  </td>
                  <td data-label="API">{apiCell(props.site.id, a, ref)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </SiteFrame>
  );
}
