// site.yaml and authors/<id>.yaml → checked Site and Author records.
import fs from 'node:fs/promises';
import path from 'node:path';
import { readContentFile, symlinkIssue, walkFiles, type FileBudget } from './content-files.ts';
import { FieldReader } from './field-reader.ts';
import { issue, START, type ContentIssue } from './issues.ts';
import { CONTENT_LIMITS } from './limits.ts';
import {
  DEFAULT_ARTICLE_PATH,
  DEFAULT_TIMEZONE,
  DEFAULT_VERIFY_DELAY_MS,
  LANG_TAG,
  MAX_VERIFY_DELAY_MS,
  SITE_ID,
  type Author,
  type Site,
} from './model.ts';
import { decodeUtf8 } from './parse-article.ts';
import { parseYamlMapping } from './yaml-fields.ts';
import { isMissingFile } from '../problems/problem.ts';
import { parseDuration } from '../text/duration.ts';

const SITE_FIELDS = ['name', 'lang', 'url', 'articlePath', 'timezone', 'previewUrl', 'verifyAfterDelivery'] as const;
const AUTHOR_FIELDS = ['name', 'bio', 'url'] as const;

async function readYaml(file: string, issues: ContentIssue[]) {
  const bytes = readContentFile(file, CONTENT_LIMITS.yamlBytes, issues);
  if (!bytes) return null;
  const text = decodeUtf8(bytes);
  if (text === null) {
    issues.push(issue(file, START, 'CONTENT_ENCODING_INVALID', 'file is not valid UTF-8'));
    return null;
  }
  const yaml = parseYamlMapping(text, file);
  issues.push(...yaml.issues);
  return yaml.ok ? new FieldReader(yaml, file, issues) : null;
}

export async function loadSite(dir: string, issues: ContentIssue[]): Promise<Site | null> {
  const id = path.basename(dir);
  const file = path.join(dir, 'site.yaml');
  if (!SITE_ID.test(id)) {
    issues.push(
      issue(dir, START, 'CONTENT_SITE_ID_INVALID', `site folder "${id}" is not a valid site id`, {
        hint: 'use lower-case letters, digits and dashes, starting with a letter or digit (no dots)',
      }),
    );
    return null;
  }
  let stat: import('node:fs').Stats | null = null;
  try {
    stat = await fs.lstat(file);
  } catch (err) {
    if (!isMissingFile(err)) throw new Error(`cannot read ${file}`, { cause: err });
  }
  if (stat?.isSymbolicLink()) {
    issues.push(symlinkIssue(file));
    return null;
  }
  if (!stat) {
    issues.push(
      issue(file, START, 'CONTENT_SITE_CONFIG_MISSING', `site "${id}" has no site.yaml`, {
        hint: 'add site.yaml with name, lang and url',
      }),
    );
    return null;
  }
  const f = await readYaml(file, issues);
  if (!f) return null;
  const before = issues.length;
  const name = f.string('name', { required: true });
  const lang = f.string('lang', { required: true });
  if (lang !== null && !LANG_TAG.test(lang)) {
    f.fail(
      'lang',
      'CONTENT_LANG_INVALID',
      `\`lang\` "${lang}" is not a language tag`,
      'use a BCP 47 tag such as en, fr or pt-BR',
    );
  }
  const url = f.url('url', ['https:', 'http:'], { required: true });
  const articlePath = f.string('articlePath') ?? DEFAULT_ARTICLE_PATH;
  if (!articlePath.startsWith('/') || !articlePath.includes('{slug}')) {
    f.fail(
      'articlePath',
      'CONTENT_URL_INVALID',
      `\`articlePath\` must start with "/" and contain {slug}: "${articlePath}"`,
    );
  }
  const timezone = readTimezone(f);
  const previewUrl = readPreviewUrl(f);
  const verifyAfterDeliveryMs = readVerifyAfterDelivery(f);
  f.warnUnknown(SITE_FIELDS);
  const failed = issues.slice(before).some((i) => i.severity === 'error');
  if (failed || name === null || lang === null || url === null) return null;
  return { id, name, lang, url, articlePath, timezone, previewUrl, verifyAfterDeliveryMs, dir };
}

/**
 * `verifyAfterDelivery`: whether each delivered article's live page is checked, and when first:
 * `false` (never), `true` or absent (after the default delay), or the delay (`30s`, `2m`, `0`).
 */
function readVerifyAfterDelivery(f: FieldReader): number | null {
  const value = f.string('verifyAfterDelivery');
  if (value === null || value === 'true') return DEFAULT_VERIFY_DELAY_MS;
  if (value === 'false') return null;
  const ms = parseDuration(value);
  if (ms === null || ms > MAX_VERIFY_DELAY_MS) {
    f.fail(
      'verifyAfterDelivery',
      'CONTENT_FIELD_TYPE',
      `\`verifyAfterDelivery\` must be true, false or a delay of at most 1h: "${value}"`,
      'e.g. verifyAfterDelivery: 2m (the first check two minutes after each delivery), or false to turn the checks off',
    );
    return DEFAULT_VERIFY_DELAY_MS;
  }
  return ms;
}

/** An IANA zone name the runtime knows (`Europe/Paris`), as the runtime spells it. */
function readTimezone(f: FieldReader): string {
  const zone = f.string('timezone');
  if (zone === null) return DEFAULT_TIMEZONE;
  const known = canonicalZone(zone);
  if (known === null) {
    f.fail(
      'timezone',
      'CONTENT_TIMEZONE_INVALID',
      `\`timezone\` "${zone}" is not a time zone name`,
      'use an IANA name such as UTC, Europe/Paris or America/New_York',
    );
    return DEFAULT_TIMEZONE;
  }
  return known;
}

export function canonicalZone(zone: string): string | null {
  // Offsets such as "+02:00" are valid to Intl but are not zones: they ignore daylight saving.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(zone) || zone.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null; // RangeError: the runtime's time zone data has no such zone
  }
}

/**
 * `previewUrl`: where the site shows a draft, with `{slug}` and `{token}` to fill in. HTTPS only
 * (the token in it opens a draft), but for loopback hosts while a site is developed locally.
 */
function readPreviewUrl(f: FieldReader): string | null {
  const template = f.string('previewUrl');
  if (template === null) return null;
  const problem = previewUrlProblem(template);
  if (problem) {
    f.fail(
      'previewUrl',
      'CONTENT_URL_INVALID',
      `\`previewUrl\` ${problem}: "${template}"`,
      'e.g. https://example.com/api/preview?slug={slug}&token={token}',
    );
    return null;
  }
  return template;
}

function previewUrlProblem(template: string): string | null {
  if (!template.includes('{slug}') || !template.includes('{token}')) return 'must contain {slug} and {token}';
  let url: URL;
  try {
    url = new URL(template.replaceAll('{slug}', 'slug-placeholder').replaceAll('{token}', 'token-placeholder'));
  } catch {
    return 'is not an absolute URL';
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'must use https';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.host.includes('-placeholder')) return 'must not put {slug} or {token} in the host';
  return null;
}

/**
 * A site whose folder name or site.yaml has problems (already reported): its articles are still
 * read and checked with this in its place, so one run shows every problem. Its values reach no
 * output, because a build with problems writes nothing.
 */
export function standInSite(dir: string): Site {
  const id = path.basename(dir);
  return {
    id,
    name: id,
    lang: 'en',
    url: 'https://site-yaml-has-problems.invalid',
    articlePath: DEFAULT_ARTICLE_PATH,
    timezone: DEFAULT_TIMEZONE,
    previewUrl: null,
    verifyAfterDeliveryMs: null,
    dir,
  };
}

export async function loadAuthors(
  dir: string,
  issues: ContentIssue[],
  budget: FileBudget,
): Promise<Map<string, Author>> {
  const authors = new Map<string, Author>();
  const files = (await walkFiles(dir, issues, budget))
    .filter((f) => path.dirname(f) === dir && /\.ya?ml$/.test(f))
    .sort();
  for (const file of files) {
    const name = path.basename(file);
    const id = name.replace(/\.ya?ml$/, '');
    if (!SITE_ID.test(id)) {
      issues.push(
        issue(file, START, 'CONTENT_AUTHOR_ID_INVALID', `author file name "${id}" is not a valid id`, {
          hint: 'use lower-case letters, digits and dashes',
        }),
      );
      continue;
    }
    // An author file with problems still names an author: articles citing it are not told the
    // author is unknown (one fault, one message); the problems fail the build.
    const f = await readYaml(file, issues);
    if (!f) {
      authors.set(id, { id, name: id, bio: null, url: null });
      continue;
    }
    const authorName = f.string('name', { required: true });
    authors.set(id, { id, name: authorName ?? id, bio: f.string('bio'), url: f.url('url') });
    f.warnUnknown(AUTHOR_FIELDS);
  }
  return authors;
}
