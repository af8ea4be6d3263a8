// What the state store keeps of page checks (the check of a delivered article's live page, made
// after its delivery is acknowledged), as the rest of Quire sees it: the plan recorded with a
// delivery, a verifier's claim, what a check found.

/**
 * What a delivered article's live page must show, recorded with its delivery when it is queued
 * (src/publish/ makes it from the build; the article's html is the delivery's own body).
 */
export interface PageCheckPlan {
  /** The site's base URL (site.yaml `url`): its sitemap is read there. */
  siteUrl: string;
  /** The article's URL on the site (`url` and `articlePath`): checked unless the receiver replied another. */
  articleUrl: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
  /** The first check this long after the delivery is acknowledged. */
  delayMs: number;
}

/** A delivery's page check as queued: its plan, 'off' (its site turned the checks off), or null (nothing to check). */
export type PageCheckRequest = PageCheckPlan | 'off' | null;

/** What a page check came to, as shown: a verdict, `pending` (not checked yet) or `off`. */
export type VerificationState = 'pending' | 'live' | 'render_problem' | 'unverified' | 'off';

/** One of the four checks (sitemap, canonical, html, byline) of a page check, as kept. */
export interface StoredCheck {
  id: string;
  status: string;
  code: string;
  message: string;
  expected: string | null;
  actual: string | null;
  fix: string | null;
}

/** A delivery's page check: what its article's live page showed (see src/delivery/page-verifier.ts). */
export interface Verification {
  state: VerificationState;
  /** render_problem: the failing check's code; unverified: why the verifier could not tell. */
  code: string | null;
  message: string | null;
  fix: string | null;
  /** The page checked: the receiver's `{url}` reply, else the article's URL on the site. */
  url: string | null;
  checks: StoredCheck[] | null;
  checkedAt: number | null;
  /** When the page is checked again (the site may still be catching up); null: no more checks. */
  nextCheckAt: number | null;
}

/** A page check a verifier holds the lease of: the plan, the delivery's bytes and where the receiver said the article landed. */
export interface ClaimedPageCheck {
  deliveryId: string;
  siteId: string;
  slug: string;
  event: string;
  plan: PageCheckPlan;
  /** Checks made before this one. */
  tries: number;
  replyUrl: string | null;
  body: Buffer;
}

/** What one check found, and when the next one is (null: none). */
export interface PageCheckResult {
  state: 'live' | 'render_problem' | 'unverified';
  code: string | null;
  message: string | null;
  fix: string | null;
  url: string;
  checks: StoredCheck[];
  checkedAt: number;
  nextCheckAt: number | null;
}

/** An article delivered but not right on its site: its newest delivered delivery, whose check found a problem or could not tell. */
export interface PageCheckProblem {
  deliveryId: string;
  slug: string;
  event: string;
  deliveredAt: number | null;
  verification: Verification;
}

/** Page checks by what they came to (`pending`: acknowledged deliveries not checked yet). */
export type VerificationCounts = Record<VerificationState, number>;
