// Headers on every admin response: a strict CSP (own scripts and styles only, no inline code,
// forms post only to this origin, no framing), no caching of pages that show keys, and a
// referrer policy that keeps the origin on same-origin requests (no-referrer would make
// Chromium send `Origin: null` on form posts).
export const ADMIN_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cache-control': 'no-store',
};
