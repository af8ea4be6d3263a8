import { outcomeOfRecord } from '../../delivery/attempt-record.ts';
import type { RetryOutcome } from '../../delivery/retry-now.ts';
import {
  attemptErrorText,
  type AttemptLogEntry,
  type PageCheckProblem,
  type UndeliveredEntry,
} from '../../store/state-store.ts';
import type { Flash } from './layout.tsx';
import { CsrfField, formatTime } from './layout.tsx';
import { PageCheck, PageProblems } from './page-check.tsx';
import { SiteFrame } from './site-frame.tsx';

function statusBadge(a: AttemptLogEntry) {
  if (outcomeOfRecord(a).kind === 'delivered') return <span class="badge ok">{a.status}</span>;
  return <span class="badge err">{a.status ?? 'no answer'}</span>;
}

function RedeliverButton(props: { csrf: string; siteId: string; deliveryId: string; event: string; slug: string }) {
  return (
    <form method="post" action={`/admin/sites/${props.siteId}/deliveries/${props.deliveryId}/redeliver`}>
      <CsrfField csrf={props.csrf} />
      <button type="submit" aria-label={`Redeliver ${props.event} of ${props.slug}`}>
        Redeliver
      </button>
    </form>
  );
}

/** The articles a receiver is still missing: their newest delivery failed, none succeeded since. */
function NotDelivered(props: { csrf: string; siteId: string; entries: UndeliveredEntry[] }) {
  return (
    <section class="card" id="not-delivered" aria-labelledby="not-delivered-h" tabindex={-1}>
      <h2 id="not-delivered-h">
        Not delivered <span class="badge err">{props.entries.length}</span>
      </h2>
      <p class="muted small">
        The newest delivery of each of these articles failed, and none has succeeded since. Redeliver once the receiver
        is fixed; a success takes the article off this list. Test connection is not counted here.
      </p>
      <ul class="plain">
        {props.entries.map((e) => (
          <li>
            <span class="mono small">{e.slug}</span>{' '}
            <span class="muted small">
              {e.event}, failed {formatTime(e.failedAt)}
            </span>
            <div class="muted small">
              {e.lastError ?? (e.lastStatus !== null ? `HTTP ${e.lastStatus}` : 'no answer')}
            </div>
            <RedeliverButton
              csrf={props.csrf}
              siteId={props.siteId}
              deliveryId={e.deliveryId}
              event={e.event}
              slug={e.slug}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Pending deliveries wait for their next attempt after a failure; this sends them now. */
function SendPendingNow(props: { csrf: string; siteId: string; pending: number }) {
  return (
    <section class="card" aria-labelledby="pending-h">
      <h2 id="pending-h">
        Pending <span class="badge warn">{props.pending}</span>
      </h2>
      <p class="muted small">
        These failed and wait for their next attempt. Once the receiver is fixed, send them now instead of waiting.
        Delivered and failed ones are not sent again (use Redeliver).
      </p>
      <form method="post" action={`/admin/sites/${props.siteId}/deliveries/retry`}>
        <CsrfField csrf={props.csrf} />
        <button type="submit">Send pending now</button>
      </form>
    </section>
  );
}

const OUTCOME_WORDS: Record<RetryOutcome['state'], string> = {
  delivered: 'delivered',
  pending: 'failed again; retried later',
  failed: 'failed for good',
  superseded: 'replaced by a newer delivery',
  busy: 'being sent by the server',
};

/** What "Send pending now" did, once. */
function RetryResult(props: { outcomes: RetryOutcome[] }) {
  return (
    <section class="card" id="retry-result" aria-labelledby="retry-result-h" tabindex={-1}>
      <h2 id="retry-result-h">Sent now</h2>
      <ul class="plain">
        {props.outcomes.map((o) => (
          <li>
            <span class={`badge ${o.state === 'delivered' ? 'ok' : 'err'}`}>{OUTCOME_WORDS[o.state]}</span>{' '}
            <span class="mono small">{o.slug}</span> <span class="muted small">{o.event}</span>
            {o.state !== 'delivered' && o.lastError ? <div class="muted small">{o.lastError}</div> : null}
            {o.state === 'pending' && o.nextAttemptAt !== null ? (
              <div class="muted small">next attempt {formatTime(o.nextAttemptAt)}</div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function DeliveriesTab(props: {
  csrf: string;
  flash: Flash | null;
  site: { id: string; name: string };
  log: AttemptLogEntry[];
  pending: number;
  undelivered: UndeliveredEntry[];
  pageProblems: PageCheckProblem[];
  retried: RetryOutcome[] | null;
}) {
  const { site, csrf } = props;
  return (
    <SiteFrame csrf={csrf} flash={props.flash} site={site} tab="deliveries">
      {props.retried ? <RetryResult outcomes={props.retried} /> : null}
      {props.pending ? <SendPendingNow csrf={csrf} siteId={site.id} pending={props.pending} /> : null}
      {props.undelivered.length ? <NotDelivered csrf={csrf} siteId={site.id} entries={props.undelivered} /> : null}
      {props.pageProblems.length ? <PageProblems entries={props.pageProblems} /> : null}
      <section class="card" aria-labelledby="log-h">
        <h2 id="log-h">
          Delivery log {props.pending ? <span class="badge warn">{props.pending} pending</span> : null}
        </h2>
        {props.log.length === 0 ? (
          <p class="muted">
            No deliveries yet. They appear here after <code>npm run publish</code> or Test connection.
          </p>
        ) : (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Article</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="opt">
                    Duration
                  </th>
                  <th scope="col">Result</th>
                  <th scope="col">
                    <span class="skip">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.log.map((a) => (
                  <tr>
                    <td class="small" data-label="Time">
                      {formatTime(a.startedAt)}
                    </td>
                    <td data-label="Event">
                      {a.event}
                      {a.origin !== 'publish' ? <div class="muted small">{a.origin}</div> : null}
                    </td>
                    <td class="mono small" data-label="Article">
                      {a.slug}
                    </td>
                    <td data-label="Status">{statusBadge(a)}</td>
                    <td class="opt small" data-label="Duration">
                      {a.durationMs} ms
                    </td>
                    <td class="small" data-label="Result">
                      {a.replyUrl ? (
                        <span>
                          Landed at{' '}
                          <a href={a.replyUrl} rel="noreferrer noopener">
                            {a.replyUrl}
                          </a>
                        </span>
                      ) : null}
                      {a.error ? <div class="muted">{attemptErrorText(a)}</div> : null}
                      {!a.replyUrl && !a.error ? <span class="muted">{a.deliveryState}</span> : null}
                      <PageCheck verification={a.verification} />
                      <div class="muted mono small">{a.deliveryId}</div>
                    </td>
                    <td>
                      {a.deliveryState !== 'pending' ? (
                        <RedeliverButton
                          csrf={csrf}
                          siteId={site.id}
                          deliveryId={a.deliveryId}
                          event={a.event}
                          slug={a.slug}
                        />
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
