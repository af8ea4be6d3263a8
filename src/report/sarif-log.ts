// Problems as a SARIF 2.1.0 log (OASIS), for GitHub code scanning and other SARIF viewers: one
// run, a rule per code found (its meaning and fix from the problem catalogue), a result per
// problem at its file, line and column, with the fingerprint of fingerprint.ts.
import { CATALOGUE } from '../problems/catalogue.ts';
import type { ReportedProblem } from './reported-problem.ts';

export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifTool {
  name: string;
  version: string;
}

export function sarifLog(problems: readonly ReportedProblem[], tool: SarifTool): Record<string, unknown> {
  const codes = [...new Set(problems.map((p) => p.code))].sort();
  const rules = codes.map((code) => ({
    id: code,
    shortDescription: { text: CATALOGUE[code].meaning },
    help: { text: CATALOGUE[code].fix },
  }));
  const results = problems.map((p) => ({
    ruleId: p.code,
    ruleIndex: codes.indexOf(p.code),
    level: p.severity,
    message: { text: p.hint ? `${p.message}\nhint: ${p.hint}` : p.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(p.path) },
          region: { startLine: p.line, startColumn: p.column },
        },
      },
    ],
    partialFingerprints: { 'quireProblem/v1': p.fingerprint },
  }));
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      { tool: { driver: { name: tool.name, version: tool.version, rules } }, columnKind: 'utf16CodeUnits', results },
    ],
  };
}

/**
 * A relative path as a URI reference: each part percent-encoded, so that a file named `a#b.md` or
 * `50% off.md` is that file and not a fragment or a broken escape.
 */
export function uriOf(relativePath: string): string {
  return relativePath.split('/').map(encodeURIComponent).join('/');
}
