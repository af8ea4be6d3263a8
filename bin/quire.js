#!/usr/bin/env node
// The `quire` command for `npm link` / global installs: runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
