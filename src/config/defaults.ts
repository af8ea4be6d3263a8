// Defaults that code outside the Node process needs too (the edge Worker bundles the API app,
// which must not pull in config.ts and its Node imports).

/** The cap on a request body when QUIRE_MAX_BODY_BYTES is unset. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
