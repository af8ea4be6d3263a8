export declare const CACHE_DIR: string;
export declare const BUNDLE_OPTIONS: import('esbuild').BuildOptions;
export declare function sourceFingerprint(srcDir?: string): string;
export declare function ensureBundle(): Promise<string>;
export declare function pruneOldBundles(cacheDir: string, current: string): void;
