// A delivery's page check as the command line, its JSON and the MCP tools show it: one word for
// the table, and the JSON (`verification` of `quire deliveries --json`, times as ISO 8601, fields
// without a value left out).
import type { StoredCheck, Verification, VerificationState } from '../store/state-store.ts';

export interface VerificationJson {
  state: VerificationState;
  code?: string;
  message?: string;
  fix?: string;
  url?: string;
  checks?: StoredCheck[];
  checkedAt?: string;
  nextCheckAt?: string;
}

export function verificationJson(v: Verification | null): VerificationJson | null {
  if (!v) return null;
  const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());
  const json: VerificationJson = { state: v.state };
  if (v.code !== null) json.code = v.code;
  if (v.message !== null) json.message = v.message;
  if (v.fix !== null) json.fix = v.fix;
  if (v.url !== null) json.url = v.url;
  if (v.checks !== null) json.checks = v.checks;
  if (v.checkedAt !== null) json.checkedAt = iso(v.checkedAt)!;
  if (v.nextCheckAt !== null) json.nextCheckAt = iso(v.nextCheckAt)!;
  return json;
}

const WORDS: Record<VerificationState, string> = {
  pending: 'pending',
  live: 'live',
  render_problem: 'render problem',
  unverified: 'unverified',
  off: 'off',
};

/** `live`, `render problem HTML_MODIFIED`, `unverified FETCH_TIMEOUT`, `pending`, `off`; `-` when none. */
export function verificationWords(v: Verification | null): string {
  if (!v) return '-';
  return v.code && v.state !== 'pending' ? `${WORDS[v.state]} ${v.code}` : WORDS[v.state];
}
