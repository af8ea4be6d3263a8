import { Layout, type Flash } from './layout.tsx';

export interface SiteSummaryView {
  id: string;
  name: string;
  published: number;
  webhook: { url: string; disabled: boolean } | null;
  pending: number;
  failed: number;
}

export function SitesPage(props: { csrf: string; flash: Flash | null; sites: SiteSummaryView[] }) {
  return (
    <Layout title="Sites" csrf={props.csrf} flash={props.flash}>
      <h1>Sites</h1>
      {props.sites.length === 0 ? <p class="muted">No sites in the build yet: add <code>content/&lt;site&gt;/site.yaml</code>.</p> : null}
      <div class="sites">
        {props.sites.map((s) => (
          <a class="card" href={`/admin/sites/${s.id}/publishing`}>
            <h2>{s.name}</h2>
            <p class="muted small mono">{s.id}</p>
            <p>
              {s.published} published article{s.published === 1 ? '' : 's'}
            </p>
            <p>
              {s.webhook ? (
                s.webhook.disabled ? <span class="badge err">Webhook disabled</span> : <span class="badge ok">Webhook</span>
              ) : (
                <span class="badge">Content API only</span>
              )}{' '}
              {s.pending ? <span class="badge warn">{s.pending} pending</span> : null} {s.failed ? <span class="badge err">{s.failed} failed</span> : null}
            </p>
          </a>
        ))}
      </div>
    </Layout>
  );
}
