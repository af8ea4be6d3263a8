import path from 'node:path';
import type { NextConfig } from 'next';

const config: NextConfig = {
  // In this repository `quire` is installed by path (a link to ../..): let the bundler read it.
  turbopack: { root: path.resolve(import.meta.dirname, '../..') },
  outputFileTracingRoot: path.resolve(import.meta.dirname, '../..'),
};

export default config;
