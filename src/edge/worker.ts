// The Worker entry point (wrangler.toml `main`): the Content API over the export in an R2 bucket.
// Bindings: QUIRE_EXPORT (the R2 bucket `quire deploy` fills), QUIRE_SECRET (a secret: the same
// server secret the keys were made with), and as plain variables QUIRE_S3_PREFIX,
// QUIRE_PUBLIC_URL and QUIRE_POINTER_TTL_SECONDS. Nothing here, or in what it imports, uses a
// Node API: `npm run check:structure` and test/edge/portable.test.ts hold it to that. A Worker
// module exports its handlers only.
import { ApiError } from '../api/api-error.ts';
import { errorResponse } from '../api/error-response.ts';
import { createEdgeHandler } from './edge-handler.ts';
import { edgeSettings, type WorkerEnv } from './worker-settings.ts';

// One handler per isolate: its caches are what makes the next request cheap.
let handler: { fetch(request: Request): Promise<Response> } | null = null;

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    if (!handler) {
      const settings = edgeSettings(env);
      if (Array.isArray(settings)) {
        console.error(`Quire edge Worker is not set up:\n  - ${settings.join('\n  - ')}`);
        return errorResponse(new ApiError('INTERNAL_ERROR', 'the server failed to answer this request'));
      }
      handler = createEdgeHandler(settings);
    }
    return handler.fetch(request);
  },
};
