// The renderer's version on its own, so that modules keying caches by it do not load the
// rendering pipeline (unified, micromark, parse5…) just to read a string.

/** Bump when output for the same input changes: it keys the render cache. */
export const RENDERER_VERSION = 'quire-render-3';
