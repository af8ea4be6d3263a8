// Parse a YAML mapping and keep where each field sits, so problems can name file:line:col.
import { LineCounter, isMap, isScalar, parseDocument, visit, type Document, type Node } from 'yaml';
import { issue, type ContentIssue, type Place } from './issues.ts';
import { CONTENT_LIMITS } from './limits.ts';

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
 * Never throws: what the text makes the parser do is bounded (CONTENT_LIMITS), and anything that
 * still goes wrong is a problem of this file.
 */
export function parseYamlMapping(text: string, file: string, lineOffset = 0): YamlMapping {
  const bytes = Buffer.byteLength(text);
  if (bytes > CONTENT_LIMITS.yamlBytes) {
    const problem = issue(
      file,
      { line: 1 + lineOffset, column: 1 },
      'CONTENT_TOO_LARGE',
      `the YAML is ${bytes} bytes; the limit is ${CONTENT_LIMITS.yamlBytes}`,
      {
        hint: 'front matter holds a few short fields; move long text into the body',
      },
    );
    return { fields: new Map(), issues: [problem], ok: false };
  }
  try {
    return readMapping(text, file, lineOffset);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      fields: new Map(),
      issues: [
        issue(
          file,
          { line: 1 + lineOffset, column: 1 },
          'CONTENT_YAML_INVALID',
          `the YAML could not be read: ${message}`,
        ),
      ],
      ok: false,
    };
  }
}

function readMapping(text: string, file: string, lineOffset: number): YamlMapping {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined): Place => {
    const p = lc.linePos(offset ?? 0);
    return { line: p.line + lineOffset, column: p.col };
  };
  const fields = new Map<string, YamlField>();
  const issues: ContentIssue[] = [];

  // One fault: the parser's later errors are mostly the first one seen again from further on.
  const [err] = doc.errors;
  if (err) {
    issues.push(
      issue(file, at(err.pos[0]), 'CONTENT_YAML_INVALID', `malformed YAML: ${err.message}`, {
        hint: 'quote values that contain ": " or start with a special character such as @, `, [ or {',
      }),
    );
    return { fields, issues, ok: false };
  }
  // Each alias is resolved by walking the whole document: thousands of them cost minutes.
  const tooMany = aliasBeyondLimit(doc);
  if (tooMany) {
    issues.push(
      issue(
        file,
        at(tooMany.range?.[0]),
        'CONTENT_YAML_TOO_COMPLEX',
        `more than ${CONTENT_LIMITS.yamlAliases} YAML aliases (\`*name\`)`,
        {
          hint: 'write the values out instead of referring to anchors',
        },
      ),
    );
    return { fields, issues, ok: false };
  }

  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    return { fields, issues, ok: true };
  }
  if (!isMap(root)) {
    issues.push(issue(file, at(root.range?.[0]), 'CONTENT_YAML_INVALID', 'expected a mapping of `field: value` lines'));
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
    let value: unknown = null;
    try {
      value = valueNode ? valueNode.toJS(doc, { maxAliasCount: CONTENT_LIMITS.yamlAliases }) : null;
    } catch (cause) {
      // An alias bomb: few aliases, each expanding the one before.
      const at0 = valueNode?.range ? at(valueNode.range[0]) : keyPlace;
      issues.push(
        issue(
          file,
          at0,
          'CONTENT_YAML_TOO_COMPLEX',
          `\`${name}\` expands to too much data: ${(cause as Error).message}`,
          {
            hint: 'write the values out instead of referring to anchors',
          },
        ),
      );
      return { fields, issues, ok: false };
    }
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

/** The first alias past CONTENT_LIMITS.yamlAliases, found in one walk. */
function aliasBeyondLimit(doc: Document): Node | null {
  let count = 0;
  let found: Node | null = null;
  visit(doc, {
    Alias(_key, node) {
      if (++count <= CONTENT_LIMITS.yamlAliases) return undefined;
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}
