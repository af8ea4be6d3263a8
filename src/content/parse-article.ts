// One Markdown file → checked front matter + body. Cross-article checks happen in load-content.
import path from 'node:path';
import { FieldReader } from './field-reader.ts';
import { splitFrontMatter } from './front-matter.ts';
import { issue, START, type ContentIssue } from './issues.ts';
import {
  ARTICLE_KINDS,
  ARTICLE_STATUSES,
  FRONT_MATTER_FIELDS,
  LANG_TAG,
  MAX_SLUG_LENGTH,
  SLUG,
  fieldPlaces,
  slugFromFileName,
  type ArticleMeta,
  type ImageRef,
} from './model.ts';
import { parseYamlMapping } from './yaml-fields.ts';

export interface ParsedArticle {
  meta: ArticleMeta | null;
  markdown: string;
  bodyLine: number;
  issues: ContentIssue[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

export function parseArticle(file: string, bytes: Uint8Array): ParsedArticle {
  const issues: ContentIssue[] = [];
  const text = decodeUtf8(bytes);
  if (text === null) {
    issues.push(
      issue(file, START, 'CONTENT_ENCODING_INVALID', 'file is not valid UTF-8', { hint: 'save the file as UTF-8' }),
    );
    return { meta: null, markdown: '', bodyLine: 1, issues };
  }
  const split = splitFrontMatter(file, text);
  if (!split.ok) {
    issues.push(split.problem);
    return { meta: null, markdown: '', bodyLine: 1, issues };
  }
  const { bodyLine } = split;
  const yaml = parseYamlMapping(split.yaml, file);
  issues.push(...yaml.issues);
  if (!yaml.ok) return { meta: null, markdown: split.body, bodyLine, issues };

  const f = new FieldReader(yaml, file, issues);
  const title = f.string('title', { required: true });
  const slug = readSlug(f, file);
  const status = f.oneOf('status', ARTICLE_STATUSES, 'draft', 'CONTENT_STATUS_UNKNOWN');
  const kind = f.oneOf('kind', ARTICLE_KINDS, 'standard', 'CONTENT_KIND_UNKNOWN');
  const lang = f.string('lang');
  if (lang !== null && !LANG_TAG.test(lang)) {
    f.fail(
      'lang',
      'CONTENT_LANG_INVALID',
      `\`lang\` "${lang}" is not a language tag`,
      'use a BCP 47 tag such as en, fr or pt-BR',
    );
  }
  const publishedAt = f.date('publishedAt');
  const meta: ArticleMeta = {
    title: title ?? '',
    slug,
    status,
    metaDescription: readMetaDescription(f),
    excerpt: f.string('excerpt'),
    lang: lang !== null && LANG_TAG.test(lang) ? lang : null,
    image: readImage(f),
    imageAlt: f.string('imageAlt'),
    author: f.string('author'),
    related: f.stringList('related').map((r) => ({ slug: r.value, ...r.place })),
    kind,
    sourceUrl: f.url('sourceUrl'),
    publishedAt,
    updatedAt: f.date('updatedAt'),
    expiresAt: readExpiry(f, publishedAt),
    places: fieldPlaces((field) => f.placeOf(field)),
  };
  f.warnUnknown(FRONT_MATTER_FIELDS);
  // Without a title the file is still an article to the cross-file checks (its author, images
  // and related slugs), so all of its problems show at once; the missing title fails the build.
  return { meta, markdown: split.body, bodyLine, issues };
}

/**
 * Search engines show about this much of a description: Google cuts its snippets at about 920
 * pixels, some 155–160 characters of Latin text, and ends them with "…". Past it, what the editor
 * wrote last is not read in search results.
 */
export const META_DESCRIPTION_SHOWN = 160;

/** `metaDescription`; longer than search engines show, a warning (it is still published in full). */
function readMetaDescription(f: FieldReader): string | null {
  const text = f.string('metaDescription');
  const length = text === null ? 0 : Array.from(text).length;
  if (length > META_DESCRIPTION_SHOWN) {
    f.warn(
      'metaDescription',
      'CONTENT_META_DESCRIPTION_LONG',
      `\`metaDescription\` is ${length} characters; search engines show about ${META_DESCRIPTION_SHOWN} and cut the rest`,
      `shorten it to ${META_DESCRIPTION_SHOWN} characters or fewer, the most important words first`,
    );
  }
  return text;
}

/**
 * `expiresAt`, which must come after an explicit `publishedAt` (an article withdrawn before it
 * goes live would never be served: almost certainly a typo in one of the two dates). Against a
 * publishedAt taken from git history the build checks it once the dates are known.
 */
function readExpiry(f: FieldReader, publishedAt: string | null): string | null {
  const expiresAt = f.date('expiresAt');
  if (expiresAt !== null && publishedAt !== null && Date.parse(expiresAt) <= Date.parse(publishedAt)) {
    f.fail(
      'expiresAt',
      'CONTENT_EXPIRY_BEFORE_PUBLISH',
      `\`expiresAt\` (${expiresAt}) is not after \`publishedAt\` (${publishedAt})`,
      'set expiresAt later than publishedAt, or remove it',
    );
  }
  return expiresAt;
}

/** The body of an article file already read once by parseArticle (valid UTF-8, YAML front matter). */
export function splitBody(file: string, bytes: Uint8Array): string {
  const split = splitFrontMatter(file, decodeUtf8(bytes) ?? '');
  return split.ok ? split.body : '';
}

function readSlug(f: FieldReader, file: string): string {
  const explicit = f.string('slug');
  const slug = explicit ?? slugFromFileName(path.basename(file));
  if (!SLUG.test(slug) || slug.length > MAX_SLUG_LENGTH) {
    const why =
      slug.length > MAX_SLUG_LENGTH
        ? `longer than ${MAX_SLUG_LENGTH} characters`
        : 'not lower-case words joined by "-"';
    if (explicit !== null) {
      f.fail(
        'slug',
        'CONTENT_SLUG_INVALID',
        `slug "${slug}" is ${why}`,
        'use a-z, 0-9 and single dashes, e.g. my-first-post',
      );
    } else {
      f.fail(
        'slug',
        'CONTENT_SLUG_INVALID',
        `no slug can be made from the file name (${why})`,
        'rename the file or set `slug:` in the front matter',
      );
    }
  }
  return slug;
}

function readImage(f: FieldReader): ImageRef | null {
  const v = f.string('image');
  if (v === null) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(v) || v.startsWith('//')) {
    const url = f.url('image', ['https:']);
    return url ? { kind: 'url', url } : null;
  }
  // A path under images/; a leading "images/" or "/images/" is accepted too.
  const rel = v.replace(/^\/+/, '').replace(/^images\//, '');
  const normal = path.posix.normalize(`images/${rel}`);
  if (!normal.startsWith('images/') || normal === 'images/') {
    f.fail('image', 'CONTENT_IMAGE_OUTSIDE', `\`image\` must be a file under the site's images/ folder: "${v}"`);
    return null;
  }
  return { kind: 'file', sitePath: normal };
}
