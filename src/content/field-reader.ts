// Typed reads of YAML fields; every wrong value becomes an issue at the value's place.
import { issue, START, type ContentIssue, type IssueCode, type Place } from './issues.ts';
import type { YamlMapping } from './yaml-fields.ts';
import { parseContentDate } from './dates.ts';
import { closestName } from '../text/closest-name.ts';

export class FieldReader {
  private readonly read = new Set<string>();
  private readonly mapping: YamlMapping;
  private readonly file: string;
  private readonly issues: ContentIssue[];

  constructor(mapping: YamlMapping, file: string, issues: ContentIssue[]) {
    this.mapping = mapping;
    this.file = file;
    this.issues = issues;
  }

  placeOf(name: string): Place {
    return this.mapping.fields.get(name)?.valuePlace ?? START;
  }

  itemPlace(name: string, index: number): Place {
    const f = this.mapping.fields.get(name);
    return f?.itemPlaces[index] ?? f?.valuePlace ?? START;
  }

  has(name: string): boolean {
    const f = this.mapping.fields.get(name);
    return f !== undefined && f.value !== null && f.value !== undefined;
  }

  fail(name: string, code: IssueCode, message: string, hint?: string): void {
    this.issues.push(issue(this.file, this.placeOf(name), code, message, hint ? { hint } : {}));
  }

  /** A warning at the field's value: the value is still used. */
  warn(name: string, code: IssueCode, message: string, hint: string): void {
    this.issues.push(issue(this.file, this.placeOf(name), code, message, { hint, severity: 'warning' }));
  }

  /** A text field; numbers are accepted and turned into text (a title may be `1984`). */
  string(name: string, opts: { required?: boolean } = {}): string | null {
    this.read.add(name);
    const f = this.mapping.fields.get(name);
    if (!f || f.value === null || f.value === undefined) {
      if (opts.required) {
        this.issues.push(
          issue(this.file, START, 'CONTENT_FIELD_REQUIRED', `missing required field \`${name}\``, {
            hint: `add a line \`${name}: …\` to the front matter`,
          }),
        );
      }
      return null;
    }
    if (typeof f.value === 'number' || typeof f.value === 'boolean') return String(f.value);
    if (typeof f.value !== 'string') {
      this.fail(name, 'CONTENT_FIELD_TYPE', `\`${name}\` must be text, not ${describe(f.value)}`);
      return null;
    }
    if (this.hasControl(f.value, f.valuePlace, name)) return null;
    const trimmed = f.value.trim();
    if (trimmed === '') {
      if (opts.required) this.fail(name, 'CONTENT_FIELD_REQUIRED', `\`${name}\` must not be empty`);
      return null;
    }
    return trimmed;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T, code: IssueCode): T {
    const v = this.string(name);
    if (v === null) return fallback;
    if (!(values as readonly string[]).includes(v)) {
      this.fail(name, code, `unknown ${name} "${v}"`, `use one of: ${values.join(', ')}`);
      return fallback;
    }
    return v as T;
  }

  /** A list of strings; a single string is read as a one-item list. */
  stringList(name: string): { value: string; place: Place }[] {
    this.read.add(name);
    const f = this.mapping.fields.get(name);
    if (!f || f.value === null || f.value === undefined) return [];
    if (typeof f.value === 'string') return [{ value: f.value.trim(), place: f.valuePlace }];
    if (!Array.isArray(f.value)) {
      this.fail(name, 'CONTENT_FIELD_TYPE', `\`${name}\` must be a list, not ${describe(f.value)}`);
      return [];
    }
    const out: { value: string; place: Place }[] = [];
    f.value.forEach((item: unknown, i: number) => {
      if (typeof item !== 'string') {
        this.issues.push(
          issue(
            this.file,
            this.itemPlace(name, i),
            'CONTENT_FIELD_TYPE',
            `\`${name}\` items must be text, not ${describe(item)}`,
          ),
        );
      } else if (!this.hasControl(item, this.itemPlace(name, i), name))
        out.push({ value: item.trim(), place: this.itemPlace(name, i) });
    });
    return out;
  }

  /** An absolute URL with one of the given schemes. */
  url(
    name: string,
    schemes: readonly string[] = ['https:', 'http:'],
    opts: { required?: boolean } = {},
  ): string | null {
    const v = this.string(name, opts);
    if (v === null) return null;
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      this.fail(name, 'CONTENT_URL_INVALID', `\`${name}\` is not an absolute URL: "${v}"`);
      return null;
    }
    if (!schemes.includes(parsed.protocol)) {
      this.fail(
        name,
        'CONTENT_URL_INVALID',
        `\`${name}\` must use ${schemes.map((s) => s.slice(0, -1)).join(' or ')}: "${v}"`,
      );
      return null;
    }
    return v; // as written: a receiving site compares it with what it renders
  }

  /** An ISO 8601 date or date-time, returned as UTC `YYYY-MM-DDTHH:MM:SSZ`. */
  date(name: string): string | null {
    this.read.add(name);
    const f = this.mapping.fields.get(name);
    if (!f || f.value === null || f.value === undefined) return null;
    const parsed = parseContentDate(f.value);
    if (parsed === null) {
      this.fail(
        name,
        'CONTENT_DATE_INVALID',
        `\`${name}\` is not a valid date: ${JSON.stringify(f.value)}`,
        'use ISO 8601, e.g. 2026-03-14 or 2026-03-14T09:30:00Z',
      );
    }
    return parsed;
  }

  /**
   * Text from front matter goes into API JSON, webhook payloads and pages: a control character
   * (C0 other than tab and line breaks, DEL, C1) is refused where it stands rather than passed
   * on or silently dropped.
   */
  private hasControl(value: string, place: Place, name: string): boolean {
    const found = CONTROL.exec(value);
    if (!found) return false;
    const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    this.issues.push(
      issue(this.file, place, 'CONTENT_CONTROL_CHARACTER', `\`${name}\` contains the control character ${code}`, {
        hint: 'remove it (tabs and line breaks are fine)',
      }),
    );
    return true;
  }

  /** Warns about fields nobody read: usually a typo such as `titel`. */
  warnUnknown(known: readonly string[]): void {
    const unknown = [...this.mapping.fields].filter(([name]) => !this.read.has(name) && !known.includes(name));
    for (const [index, [name, f]] of unknown.entries()) {
      if (index === MAX_UNKNOWN_WARNINGS) {
        // Thousands of stray fields are one mistake, not thousands of lines to read.
        this.issues.push(
          issue(
            this.file,
            f.keyPlace,
            'CONTENT_FIELD_UNKNOWN',
            `${unknown.length - index} more unknown fields from here on`,
            {
              severity: 'warning',
              hint: `known fields: ${known.join(', ')}`,
            },
          ),
        );
        return;
      }
      const near = closestName(name, known);
      this.issues.push(
        issue(this.file, f.keyPlace, 'CONTENT_FIELD_UNKNOWN', `unknown field \`${name}\``, {
          severity: 'warning',
          ...(near ? { hint: `did you mean \`${near}\`?` } : { hint: `known fields: ${known.join(', ')}` }),
        }),
      );
    }
  }
}

const MAX_UNKNOWN_WARNINGS = 10;

const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'empty';
  return typeof v === 'object' ? 'a mapping' : `a ${typeof v}`;
}
