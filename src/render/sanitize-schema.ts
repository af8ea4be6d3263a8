// The sanitizer's allow-list, kept as data. GitHub's schema, tightened: no form attributes,
// fewer link schemes, and elements whose content must not survive as text are stripped whole.
import { defaultSchema, type Options as Schema } from 'rehype-sanitize';

const FORM_AND_FOCUS_ATTRIBUTES = new Set(['accept', 'acceptCharset', 'accessKey', 'action', 'encType', 'method', 'tabIndex']);

/** Removed together with everything inside them (the rest of the unknown elements are unwrapped). */
const STRIPPED_WITH_CONTENT = [
  'script', 'style', 'template', 'noscript', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet',
  'svg', 'math', 'form', 'textarea', 'select', 'option', 'button', 'title', 'head', 'base', 'link', 'meta',
  'xmp', 'plaintext', 'noembed', 'noframes',
];

export const sanitizeSchema: Schema = {
  ...defaultSchema,
  attributes: {
    ...defaultSchema.attributes,
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
