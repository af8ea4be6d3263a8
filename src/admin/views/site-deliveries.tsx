import type { AttemptLogEntry } from '../../store/outbox.ts';
import type { Flash } from './layout.tsx';
import { CsrfField, formatTime } from './layout.tsx';
import { SiteFrame } from './site-frame.tsx';

function statusBadge(a: AttemptLogEntry) {
  if (a.status !== null && a.status >= 200 && a.status < 300) return <span class="badge ok">{a.status}</span>;
  return <span class="badge err">{a.status ?? 'no answer'}</span>;
}

export function DeliveriesTab(props: { csrf: string; flash: Flash | null; site: { id: string; name: string }; log: AttemptLogEntry[]; pending: number }) {
  const { site, csrf } = props;
  return (
    <SiteFrame csrf={csrf} flash={props.flash} site={site} tab="deliveries">
      <section class="card" aria-labelledby="log-h">
        <h2 id="log-h">
          Delivery log {props.pending ? <span class="badge warn">{props.pending} pending</span> : null}
        </h2>
        {props.log.length === 0 ? (
          <p class="muted">No deliveries yet. They appear here after <code>npm run publish</code> or Test connection.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Article</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="opt">Duration</th>
                  <th scope="col">Result</th>
                  <th scope="col">
                    <span class="skip">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.log.map((a) => (
                  <tr>
                    <td class="small">{formatTime(a.startedAt)}</td>
                    <td>
                      {a.event}
                      {a.origin !== 'publish' ? <div class="muted small">{a.origin}</div> : null}
                    </td>
                    <td class="mono small">{a.slug}</td>
                    <td>{statusBadge(a)}</td>
                    <td class="opt small">{a.durationMs} ms</td>
                    <td class="small">
                      {a.replyUrl ? (
                        <span>
                          Landed at <a href={a.replyUrl} rel="noreferrer noopener">{a.replyUrl}</a>
                        </span>
                      ) : null}
                      {a.error ? <div class="muted">{a.error}</div> : null}
                      {!a.replyUrl && !a.error ? <span class="muted">{a.deliveryState}</span> : null}
                      <div class="muted mono small">{a.deliveryId}</div>
                    </td>
                    <td>
                      {a.deliveryState !== 'pending' ? (
                        <form method="post" action={`/admin/sites/${site.id}/deliveries/${a.deliveryId}/redeliver`}>
                          <CsrfField csrf={csrf} />
                          <button type="submit" aria-label={`Redeliver ${a.event} of ${a.slug}`}>
                            Redeliver
                          </button>
                        </form>
                      ) : (
                        <span class="badge warn">queued</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </SiteFrame>
  );
}
