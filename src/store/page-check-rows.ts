// A page check's row as both SQL stores name its columns, and what it becomes: the plan a delivery
// was queued with, or the verification shown with its delivery. Its states in the row are those
// shown (VerificationState) and two more: 'awaiting' (its delivery is not acknowledged yet) and
// 'superseded' (a newer delivery of the article was acknowledged before it was checked).
import type { DeliveryState } from './records.ts';
import type {
  ClaimedPageCheck,
  PageCheckPlan,
  PageCheckRequest,
  StoredCheck,
  Verification,
} from './page-check-records.ts';

export type PageCheckRowState =
  | 'awaiting'
  | 'off'
  | 'pending'
  | 'live'
  | 'render_problem'
  | 'unverified'
  | 'superseded';

/** A page check's columns as read beside a delivery (LEFT JOIN page_checks pc): all null when it has none. */
export interface PageCheckColumns {
  pc_state: PageCheckRowState | null;
  pc_plan: string | null;
  pc_code: string | null;
  pc_message: string | null;
  pc_fix: string | null;
  pc_url: string | null;
  pc_checks: string | null;
  pc_checked_at: number | null;
  pc_due_at: number | null;
}

/** The select list that reads PageCheckColumns from the alias `pc`. */
export const PAGE_CHECK_COLUMNS =
  'pc.state AS pc_state, pc.plan AS pc_plan, pc.code AS pc_code, pc.message AS pc_message, pc.fix AS pc_fix, pc.url AS pc_url, pc.checks AS pc_checks, pc.checked_at AS pc_checked_at, pc.due_at AS pc_due_at';

/** The states in which a check is shown with its delivery (and counted). */
export const SHOWN_STATES = ['pending', 'live', 'render_problem', 'unverified', 'off'] as const;

/** What a check dropped over its site's cap says (PAGE_CHECKS_DROPPED). */
export const droppedMessage = (cap: number): string =>
  `not checked: more than ${cap} page checks waited for this site (it is slow or does not answer), so the oldest were dropped`;

/** The plan a delivery was queued with, to queue it again with the same bytes (redeliver, missed events). */
export function pageCheckRequestOf(r: Pick<PageCheckColumns, 'pc_state' | 'pc_plan'>): PageCheckRequest {
  if (r.pc_state === 'off') return 'off';
  return r.pc_plan === null ? null : (JSON.parse(r.pc_plan) as PageCheckPlan);
}

/** The verification shown with a delivery in `deliveryState`; null when there is none to show. */
export function verificationOf(r: PageCheckColumns, deliveryState: DeliveryState): Verification | null {
  const base = {
    code: null,
    message: null,
    fix: null,
    url: null,
    checks: null,
    checkedAt: null,
    nextCheckAt: null,
  };
  switch (r.pc_state) {
    case null:
    case 'superseded':
      return null;
    case 'off':
      return { ...base, state: 'off' };
    case 'awaiting':
      // Checked once its delivery is acknowledged; one that failed or was replaced never is.
      return deliveryState === 'pending' ? { ...base, state: 'pending' } : null;
    default:
      return {
        state: r.pc_state,
        code: r.pc_code,
        message: r.pc_message,
        fix: r.pc_fix,
        url: r.pc_url,
        checks: r.pc_checks === null ? null : (JSON.parse(r.pc_checks) as StoredCheck[]),
        checkedAt: r.pc_checked_at,
        nextCheckAt: r.pc_due_at,
      };
  }
}

/** A claimed check as both stores read it: its row, its delivery's event and reply URL, and the body sent. */
export interface ClaimRow {
  delivery_id: string;
  site_id: string;
  slug: string;
  plan: string;
  tries: number;
  event: string;
  reply_url: string | null;
  body: Buffer | null;
}

export function claimedPageCheckOf(r: ClaimRow): ClaimedPageCheck {
  return {
    deliveryId: r.delivery_id,
    siteId: r.site_id,
    slug: r.slug,
    event: r.event,
    plan: JSON.parse(r.plan) as PageCheckPlan,
    tries: r.tries,
    replyUrl: r.reply_url,
    body: r.body ?? Buffer.alloc(0),
  };
}
