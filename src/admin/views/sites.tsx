import { Layout, type Flash } from './layout.tsx';

export interface SiteSummaryView {
  id: string;
  name: string;
  published: number;
  webhook: { url: string; disabled: boolean } | null;
  pending: number;
  /** Articles whose newest delivery failed, with no success since (Test connection not counted). */
  undelivered: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function SitesPage(props: { csrf: string; flash: Flash | null; sites: SiteSummaryView[] }) {
  return (
    <Layout title="Sites" csrf={props.csrf} flash={props.flash}>
      <h1>Sites</h1>
      {props.sites.length === 0 ? (
        <p class="muted">
          No sites in the build yet: add <code>content/&lt;site&gt;/site.yaml</code>.
        </p>
      ) : null}
      <div class="sites">
        {props.sites.map((s) => (
          <section class="card" aria-labelledby={`site-${s.id}`}>
            <h2 id={`site-${s.id}`}>
              <a href={`/admin/sites/${s.id}/publishing`}>{s.name}</a>
            </h2>
            <p class="muted small mono">{s.id}</p>
            <p>{plural(s.published, 'published article', 'published articles')}</p>
            <p>
              {s.webhook ? (
                s.webhook.disabled ? (
                  <span class="badge err">Webhook disabled</span>
                ) : (
                  <span class="badge ok">Webhook</span>
                )
              ) : (
                <span class="badge">Content API only</span>
              )}{' '}
              {s.pending ? <span class="badge warn">{s.pending} pending</span> : null}
            </p>
            {s.undelivered ? (
              <p class="small">
                <a class="badge err" href={`/admin/sites/${s.id}/deliveries#not-delivered`}>
                  {plural(s.undelivered, 'article not delivered', 'articles not delivered')}
                </a>
                <span class="hint">
                  Their newest delivery failed and none has succeeded since. Test connection is not counted.
                </span>
              </p>
            ) : null}
          </section>
        ))}
      </div>
    </Layout>
  );
}
