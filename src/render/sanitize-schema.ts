// The sanitizer's allow-list, kept as data. GitHub's schema, tightened: no form attributes,
// fewer link schemes, and elements whose content must not survive as text are stripped whole.
import { defaultSchema, type Options as Schema } from 'rehype-sanitize';

const FORM_AND_FOCUS_ATTRIBUTES = new Set([
  'accept',
  'acceptCharset',
  'accessKey',
  'action',
  'encType',
  'method',
  'tabIndex',
]);

/**
 * A srcset is one string holding a list of candidates, and the protocol check reads only the start
 * of it ("a.png 1x, javascript:… 2x" passes), so the whole value must match: every candidate an
 * http(s) or scheme-less URL with at most one width or density descriptor.
 */
const SRCSET_CANDIDATE = String.raw`\s*(?:https?://|(?![a-z][a-z0-9+.-]*:)[a-z0-9/._~%?#-])[^\s,]*(?:\s+\d+(?:\.\d+)?[wx])?\s*`;
const SAFE_SRCSET = new RegExp(`^${SRCSET_CANDIDATE}(?:,${SRCSET_CANDIDATE})*$`, 'i');

/** Removed together with everything inside them (the rest of the unknown elements are unwrapped). */
const STRIPPED_WITH_CONTENT = [
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'math',
  'form',
  'textarea',
  'select',
  'option',
  'button',
  'title',
  'head',
  'base',
  'link',
  'meta',
  'xmp',
  'plaintext',
  'noembed',
  'noframes',
];

export const sanitizeSchema: Schema = {
  ...defaultSchema,
  attributes: {
    ...defaultSchema.attributes,
    source: [['srcSet', SAFE_SRCSET]],
    '*': (defaultSchema.attributes?.['*'] ?? []).filter(
      (a) => !(typeof a === 'string' && FORM_AND_FOCUS_ATTRIBUTES.has(a)),
    ),
  },
  protocols: {
    href: ['http', 'https', 'mailto', 'tel'],
    src: ['http', 'https'],
    cite: ['http', 'https'],
    longDesc: ['http', 'https'],
  },
  strip: STRIPPED_WITH_CONTENT,
};
