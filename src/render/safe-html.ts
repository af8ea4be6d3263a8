// Only the sanitizer makes SafeHtml, so "only sanitized HTML reaches a page" is a type check.
declare const safeHtmlBrand: unique symbol;
export type SafeHtml = string & { readonly [safeHtmlBrand]: true };

/** For the renderer's final step only: the string came out of rehype-sanitize. */
export const markSanitized = (html: string): SafeHtml => html as SafeHtml;
