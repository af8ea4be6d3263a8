// Worker thread side of the render pool. It resolves image URLs itself from the site's image
// table (same names as the main thread: content hashes), so no callback crosses threads.
import { parentPort } from 'node:worker_threads';
import { renderMarkdown } from '../render/render-markdown.ts';
import { createImageResolver, type ImageHashCache } from './images.ts';
import type { RenderMessage, SiteMessage, WorkerReady, WorkerReply } from './render-pool.ts';

const hashes: ImageHashCache = new Map();
const resolvers = new Map<string, (sitePath: string) => string | undefined>();

parentPort!.on('message', (message: SiteMessage | RenderMessage) => {
  if (message.type === 'site') {
    const images = createImageResolver(message.siteId, new Map(message.images), message.publicUrl, hashes);
    resolvers.set(message.key, images.url);
    return;
  }
  let reply: WorkerReply;
  try {
    const resolveImage = resolvers.get(message.siteKey);
    if (!resolveImage) throw new Error(`unknown site ${message.siteKey}`);
    reply = { id: message.id, outputs: message.inputs.map((input) => renderMarkdown({ ...input, resolveImage })) };
  } catch (err) {
    reply = { id: message.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(reply);
});
// Loaded and listening: a worker that dies before this could not start (render-pool.ts).
parentPort!.postMessage({ ready: true } satisfies WorkerReady);
