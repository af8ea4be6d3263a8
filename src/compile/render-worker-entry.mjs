// Plain-JS entry for render workers: registers the TypeScript loader, then loads the worker.
import { register } from 'tsx/esm/api';

register();
await import('./render-worker.ts');
