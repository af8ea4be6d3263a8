// The rules of a conformance check, judged from what the receiver answered and what its site
// showed (run-conformance.ts gathers both): pure, so each verdict can be read here in one place.
import { fixFor } from '../../problems/problem.ts';
import type { Listing, PageLook } from './receiver-site.ts';
import { fail, pass, warn, type RuleResult, type Verifies } from './report.ts';
import { accepted, answerOf, statusOf, type Sent } from './signed-request.ts';
import type { Version } from './test-article.ts';
import type { LivePageResult } from './verify-live-page.ts';

/** Everything a check saw; a step not taken (its rule cannot be judged) is null. */
export interface Observations {
  published: Sent;
  redelivery: Sent | null;
  listing: Listing | null;
  updated: Sent | null;
  afterUpdated: PageLook | null;
  newer: Sent | null;
  afterNewer: PageLook | null;
  stale: Sent | null;
  afterStale: PageLook | null;
  forged: Sent | null;
  afterForged: PageLook | null;
  /** The right Bearer token with wrong signatures. */
  bearerOnly: Sent | null;
  /** A wrong Bearer token with the right signatures. */
  signatureOnly: Sent | null;
  /** The same JSON, keys reordered and spaced out, correctly signed. */
  unusual: Sent | null;
  /** The body spaced out, under the original bytes' signatures. */
  altered: Sent | null;
  live: { url: string; result: LivePageResult } | null;
}

const notChecked = (id: RuleResult['id'], why: string) => warn(id, 'NOT_CHECKED', `not checked: ${why}`);
const unseen = (id: RuleResult['id'], look: Extract<PageLook, { seen: false }>, what: string) =>
  warn(id, 'NOT_OBSERVABLE', `${what}, but what it stored could not be seen: ${look.why}`);
const versionName = (v: Version | null) =>
  v === null ? 'none of the versions sent' : v === 'forged' ? 'the forged text' : `version ${v}`;

/** A legitimate delivery that was not accepted: the code and words of what a delivery came to. */
const notAccepted = (id: RuleResult['id'], what: string, s: Sent) =>
  fail(id, s.explanation.code, `${what} was not accepted: ${s.explanation.message}`);

function published(o: Observations): RuleResult {
  const s = o.published;
  if (s.outcome.kind !== 'delivered') return notAccepted('published', 'a valid `published`', s);
  const { replyUrl, replyId, note } = s.outcome;
  const reply = replyUrl
    ? `; replied {url: ${replyUrl}, id: ${replyId}}`
    : `; no {url, id} reply${note ? ` (${note})` : ''}`;
  return pass('published', `accepted (${answerOf(s)} in ${s.durationMs} ms)${reply}`);
}

function redelivery(o: Observations): RuleResult {
  const s = o.redelivery;
  if (!s) return notChecked('redelivery', 'the receiver did not answer the first request');
  if (!accepted(s))
    return fail(
      'redelivery',
      'REDELIVERY_REFUSED',
      `the same delivery sent again (same webhook-id, attempt 2) was answered ${answerOf(s)}: ${s.explanation.message}`,
    );
  const l = o.listing;
  if (!l?.read)
    return warn(
      'redelivery',
      'NOT_OBSERVABLE',
      `accepted again; duplicates could not be looked for: ${l?.why ?? 'no listing'}`,
    );
  if (l.locs.length === 0)
    return warn(
      'redelivery',
      'NOT_OBSERVABLE',
      'accepted again; the sitemap does not list the test article, so a duplicate could not be seen',
    );
  if (l.locs.length > 1)
    return fail(
      'redelivery',
      'DUPLICATED',
      `after the same delivery came twice, the sitemap lists the test article ${l.locs.length} times: ${l.locs.join(', ')}`,
    );
  return pass('redelivery', `accepted again (${answerOf(s)}); the sitemap lists the test article once`);
}

function updated(o: Observations): RuleResult {
  const s = o.updated;
  if (!s) return notChecked('updated', 'the receiver did not answer the first request');
  if (!accepted(s)) return notAccepted('updated', 'a valid `updated`', s);
  const look = o.afterUpdated!;
  if (!look.seen) return unseen('updated', look, `accepted (${answerOf(s)})`);
  if (look.shows !== 2)
    return fail(
      'updated',
      'UPDATE_NOT_SHOWN',
      `accepted (${answerOf(s)}), but ${look.url} shows ${versionName(look.shows)}, not version 2`,
    );
  return pass('updated', `accepted (${answerOf(s)}); ${look.url} shows the update`);
}

function outOfDate(o: Observations): RuleResult {
  const newer = o.newer;
  if (!newer || !o.stale) return notChecked('out-of-date', 'the receiver did not answer the first request');
  if (!accepted(newer)) return notAccepted('out-of-date', 'a newer valid `updated` (version 3)', newer);
  const before = o.afterNewer!;
  if (!before.seen) return unseen('out-of-date', before, 'version 3 was accepted');
  if (before.shows !== 3)
    return notChecked(
      'out-of-date',
      `${before.url} shows ${versionName(before.shows)} after version 3 was accepted (see updated)`,
    );
  const after = o.afterStale!;
  if (!after.seen) return unseen('out-of-date', after, `the older delivery was answered ${answerOf(o.stale)}`);
  if (after.shows === 2)
    return fail(
      'out-of-date',
      'OUT_OF_DATE_APPLIED',
      `the first attempt of the version 2 delivery (its webhook-id and older webhook-timestamp), arriving after version 3, was answered ${answerOf(o.stale)} and ${after.url} went back to version 2`,
    );
  if (after.shows !== 3)
    return warn(
      'out-of-date',
      'NOT_OBSERVABLE',
      `after the older delivery, ${after.url} shows ${versionName(after.shows)}`,
    );
  return pass('out-of-date', `the older delivery arriving late (${answerOf(o.stale)}) left version 3 in place`);
}

function forged(o: Observations): RuleResult {
  const s = o.forged;
  if (!s) return notChecked('forged', 'the receiver did not answer the first request');
  const status = statusOf(s);
  if (status === null) return notChecked('forged', `the forged request got ${answerOf(s)}`);
  if (accepted(s))
    return fail(
      'forged',
      'FORGED_ACCEPTED',
      `a request with a wrong Bearer token and wrong signatures was accepted (${answerOf(s)})`,
    );
  if (status !== 401)
    return fail(
      'forged',
      'FORGED_NOT_401',
      `a request with a wrong Bearer token and wrong signatures was answered ${answerOf(s)}, not 401`,
    );
  const look = o.afterForged;
  if (look?.seen && look.shows === 'forged')
    return fail('forged', 'FORGED_ACCEPTED', `the forged request was answered 401, but ${look.url} shows its text`);
  return pass('forged', 'a request with a wrong Bearer token and wrong signatures was refused with 401');
}

/** What the receiver checks, from the two mixed requests; null when they cannot tell. */
export function verifiesOf(o: Observations): Verifies | null {
  const a = o.bearerOnly;
  const b = o.signatureOnly;
  // A receiver that accepts no valid delivery refuses the mixed ones for another reason.
  if (!accepted(o.published) || !a || !b || statusOf(a) === null || statusOf(b) === null) return null;
  if (accepted(a)) return accepted(b) ? (o.forged && accepted(o.forged) ? 'neither' : 'either') : 'bearer';
  return accepted(b) ? 'signature' : 'both';
}

function verification(o: Observations): RuleResult {
  if (!accepted(o.published) || !o.bearerOnly || !o.signatureOnly)
    return notChecked('verification', 'the receiver did not accept a valid delivery');
  const mixed = `right Bearer with wrong signatures: ${answerOf(o.bearerOnly)}; wrong Bearer with right signatures: ${answerOf(o.signatureOnly)}`;
  switch (verifiesOf(o)) {
    case null:
      return notChecked('verification', `a request got no answer (${mixed})`);
    case 'signature':
      return pass('verification', `verifies the signature (${mixed})`);
    case 'both':
      return pass('verification', `verifies both the Bearer token and the signature (${mixed})`);
    case 'bearer':
      return warn(
        'verification',
        'SIGNATURE_NOT_CHECKED',
        `checks only the Bearer token: the body could be altered unnoticed (${mixed})`,
      );
    case 'either':
      return warn(
        'verification',
        'SIGNATURE_NOT_CHECKED',
        `accepts the right Bearer token or the right signature, either alone: with the token, the body could be altered unnoticed (${mixed})`,
      );
    case 'neither':
      return warn(
        'verification',
        'SIGNATURE_NOT_CHECKED',
        `accepts requests whatever their Bearer token and signature (see forged; ${mixed})`,
      );
  }
}

function rawBody(o: Observations): RuleResult {
  const verifies = verifiesOf(o);
  if (verifies !== 'signature' && verifies !== 'both') {
    if (verifies === null) return notChecked('raw-body', 'what the receiver verifies is not known (see verification)');
    return pass(
      'raw-body',
      'not applicable: the right Bearer token is enough for this receiver, whatever the body (see verification)',
    );
  }
  const unusual = o.unusual!;
  const altered = o.altered!;
  if (statusOf(unusual) === null || statusOf(altered) === null)
    return notChecked('raw-body', `a request got no answer (${answerOf(unusual)}; ${answerOf(altered)})`);
  if (!accepted(unusual))
    return fail(
      'raw-body',
      'RAW_BODY_REFUSED',
      `a correctly signed body with its keys reordered and spaced out was refused (${answerOf(unusual)})${accepted(altered) ? `, and a body spaced out under the original signature was accepted (${answerOf(altered)})` : ''}: the receiver verifies JSON it serialized again, not the bytes it received`,
    );
  if (accepted(altered))
    return fail(
      'raw-body',
      'RAW_BODY_ALTERED_ACCEPTED',
      `a body spaced out under the signature of the original bytes was accepted (${answerOf(altered)}): the receiver verifies JSON it serialized again, not the bytes it received`,
    );
  return pass(
    'raw-body',
    `verifies the bytes as received: an unusual spelling of the JSON, correctly signed, was accepted (${answerOf(unusual)}); the body spaced out under the original signature was refused (${answerOf(altered)})`,
  );
}

function livePage(o: Observations): RuleResult {
  if (!o.live)
    return accepted(o.published)
      ? pass('live-page', 'not checked: the receiver replies no {url, id} (the contract makes it optional)')
      : notChecked('live-page', 'the receiver did not accept a valid delivery');
  const { url, result } = o.live;
  const listed = result.checks.map((c) => `${c.id} ${c.status} (${c.code})`).join(', ');
  const failed = result.checks.find((c) => c.status === 'fail');
  if (failed)
    return fail(
      'live-page',
      failed.code,
      `${url}: ${listed}; ${failed.id}: ${failed.message}`,
      failed.fix ?? fixFor(failed.code),
    );
  const other = result.checks.find((c) => c.status === 'warn' || c.status === 'error');
  if (other)
    return warn(
      'live-page',
      other.code,
      `${url}: ${listed}; ${other.id}: ${other.message}`,
      other.fix ?? fixFor(other.code),
    );
  return pass('live-page', `${url}: ${listed}`);
}

export function judge(o: Observations): RuleResult[] {
  return [published(o), redelivery(o), updated(o), outOfDate(o), forged(o), verification(o), rawBody(o), livePage(o)];
}
