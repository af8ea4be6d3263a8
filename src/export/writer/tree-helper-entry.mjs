// Plain-JS entry for the tree helper's thread from the sources: registers the TypeScript loader,
// then loads the thread. In the CLI bundle this name is the bundled thread itself.
import { register } from 'tsx/esm/api';

register();
await import('./tree-helper-thread.ts');
