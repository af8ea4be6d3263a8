import type { Child } from 'hono/jsx';
import { Layout, type Flash } from './layout.tsx';

export type SiteTab = 'articles' | 'publishing' | 'deliveries';

const TABS: [SiteTab, string][] = [
  ['articles', 'Articles'],
  ['publishing', 'Publishing'],
  ['deliveries', 'Deliveries'],
];

export function SiteFrame(props: {
  csrf: string;
  flash: Flash | null;
  site: { id: string; name: string };
  tab: SiteTab;
  children?: Child;
}) {
  const label = TABS.find(([t]) => t === props.tab)![1];
  return (
    <Layout title={`${label} · ${props.site.name}`} csrf={props.csrf} flash={props.flash}>
      <p class="crumbs">
        <a href="/admin">Sites</a> / {props.site.id}
      </p>
      <h1>{props.site.name}</h1>
      <nav class="tabs" aria-label="Site sections">
        {TABS.map(([tab, text]) => (
          <a href={`/admin/sites/${props.site.id}/${tab}`} aria-current={tab === props.tab ? 'page' : undefined}>
            {text}
          </a>
        ))}
      </nav>
      {props.children}
    </Layout>
  );
}
