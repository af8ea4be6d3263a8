// The JSON of a delivery attempt and of a page problem, as `quire deliveries --json` (and
// `--problems --json`) prints them and the MCP tool `list_deliveries` answers: one shape for both.
import { attemptErrorText, type AttemptLogEntry, type PageCheckProblem } from '../store/state-store.ts';
import { verificationJson } from './verification-view.ts';

export function attemptJson(a: AttemptLogEntry) {
  return {
    time: new Date(a.startedAt).toISOString(),
    delivery: a.deliveryId,
    site: a.siteId,
    event: a.event,
    slug: a.slug,
    origin: a.origin,
    state: a.deliveryState,
    status: a.status,
    durationMs: a.durationMs,
    error: attemptErrorText(a),
    errorKind: a.errorKind ?? null,
    replyUrl: a.replyUrl,
    replyId: a.replyId,
    verification: verificationJson(a.verification),
  };
}

export function pageProblemJson(siteId: string, p: PageCheckProblem) {
  return {
    delivery: p.deliveryId,
    site: siteId,
    event: p.event,
    slug: p.slug,
    deliveredAt: p.deliveredAt === null ? null : new Date(p.deliveredAt).toISOString(),
    verification: verificationJson(p.verification)!,
  };
}
