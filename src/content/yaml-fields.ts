// Parse a YAML mapping and keep where each field sits, so problems can name file:line:col.
import { LineCounter, isMap, isScalar, parseDocument, type Node } from 'yaml';
import { issue, type ContentIssue, type Place } from './issues.ts';

export interface YamlField {
  value: unknown;
  /** Where the key starts. */
  keyPlace: Place;
  /** Where the value starts (the key's place when there is no value). */
  valuePlace: Place;
  /** Places of the items when the value is a sequence. */
  itemPlaces: Place[];
}

export interface YamlMapping {
  fields: Map<string, YamlField>;
  issues: ContentIssue[];
  /** False when the text could not be read as a mapping at all. */
  ok: boolean;
}

/**
 * `lineOffset` shifts reported lines, for YAML embedded after a `---` line in a Markdown file.
 */
export function parseYamlMapping(text: string, file: string, lineOffset = 0): YamlMapping {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true });
  const at = (offset: number | undefined): Place => {
    const p = lc.linePos(offset ?? 0);
    return { line: p.line + lineOffset, column: p.col };
  };
  const fields = new Map<string, YamlField>();
  const issues: ContentIssue[] = [];

  if (doc.errors.length > 0) {
    for (const err of doc.errors) {
      const place = err.linePos?.[0]
        ? { line: err.linePos[0].line + lineOffset, column: err.linePos[0].col }
        : at(err.pos[0]);
      const firstLine = err.message.split('\n')[0] ?? err.message;
      issues.push(
        issue(file, place, 'CONTENT_YAML_INVALID', `malformed YAML: ${firstLine}`, {
          hint: 'quote values that contain ": " or start with a special character such as @, `, [ or {',
        }),
      );
    }
    return { fields, issues, ok: false };
  }

  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    return { fields, issues, ok: true };
  }
  if (!isMap(root)) {
    issues.push(
      issue(file, at(root.range?.[0]), 'CONTENT_YAML_INVALID', 'expected a mapping of `field: value` lines'),
    );
    return { fields, issues, ok: false };
  }
  for (const pair of root.items) {
    const key = pair.key as Node | null;
    const name = isScalar(key) ? String(key.value) : null;
    const keyPlace = at(key?.range?.[0]);
    if (name === null) {
      issues.push(issue(file, keyPlace, 'CONTENT_YAML_INVALID', 'field names must be plain strings'));
      continue;
    }
    const valueNode = pair.value as Node | null;
    const value = valueNode ? valueNode.toJS(doc) : null;
    const itemPlaces: Place[] = [];
    if (valueNode && 'items' in valueNode && Array.isArray(valueNode.items)) {
      for (const item of valueNode.items as Node[]) itemPlaces.push(at(item.range?.[0]));
    }
    fields.set(name, {
      value,
      keyPlace,
      valuePlace: valueNode?.range ? at(valueNode.range[0]) : keyPlace,
      itemPlaces,
    });
  }
  return { fields, issues, ok: true };
}
