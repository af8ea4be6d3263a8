// Where a request carries its key: `Authorization: Bearer <key>` (recommended) or `?key=<key>`.
// The API app reads it, and so does the edge Worker, to know which site a request names before
// it loads that site. No Node imports.

/** The key as sent; an Authorization header that is not Bearer is taken whole (and refused by its shape). */
export function requestKey(authorization: string | undefined, queryKey: () => string | undefined): string | null {
  if (authorization) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return m ? m[1]! : authorization;
  }
  return queryKey() ?? null;
}
