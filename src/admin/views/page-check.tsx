// What the check of a delivered article's live page came to, in the Deliveries tab: a badge
// (live, render problem, unverified, pending, off), the failing check's code and its fix; and
// the card of articles delivered but not live and right.
import type { PageCheckProblem, Verification, VerificationState } from '../../store/state-store.ts';
import { formatTime } from './layout.tsx';

const BADGES: Record<VerificationState, { words: string; tone: string }> = {
  live: { words: 'live', tone: 'ok' },
  render_problem: { words: 'render problem', tone: 'err' },
  unverified: { words: 'unverified', tone: 'warn' },
  pending: { words: 'page check pending', tone: '' },
  off: { words: 'page check off', tone: '' },
};

/** The badge, with the code and fix of a page that is not live and right. */
export function PageCheck(props: { verification: Verification | null }) {
  const v = props.verification;
  if (!v) return null;
  const badge = BADGES[v.state];
  const problem = v.state === 'render_problem' || v.state === 'unverified';
  return (
    <div class="page-check">
      <span class={`badge ${badge.tone}`}>{badge.words}</span>
      {problem && v.code ? <span class="mono small"> {v.code}</span> : null}
      {problem && v.message ? <div class="muted small">{v.message}</div> : null}
      {problem && v.fix ? <div class="small">Fix: {v.fix}</div> : null}
      {v.nextCheckAt !== null && v.state !== 'pending' ? (
        <div class="muted small">checked again {formatTime(v.nextCheckAt)}</div>
      ) : null}
    </div>
  );
}

/** Articles whose newest delivery was acknowledged but whose page is not live and right. */
export function PageProblems(props: { entries: PageCheckProblem[] }) {
  return (
    <section class="card" id="page-problems" aria-labelledby="page-problems-h" tabindex={-1}>
      <h2 id="page-problems-h">
        Delivered, not right on the site <span class="badge err">{props.entries.length}</span>
      </h2>
      <p class="muted small">
        The receiver acknowledged these, but the check of the live page that follows each delivery found a problem
        (render problem) or could not tell (unverified). Fix the site; the next delivery of the article is checked
        again.
      </p>
      <ul class="plain">
        {props.entries.map((e) => (
          <li>
            <span class="mono small">{e.slug}</span>{' '}
            <span class="muted small">
              {e.event}, delivered {formatTime(e.deliveredAt)}
            </span>
            {e.verification.url ? (
              <div class="small">
                <a href={e.verification.url} rel="noreferrer noopener">
                  {e.verification.url}
                </a>
              </div>
            ) : null}
            <PageCheck verification={e.verification} />
          </li>
        ))}
      </ul>
    </section>
  );
}
