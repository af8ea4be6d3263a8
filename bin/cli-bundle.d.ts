export declare const CACHE_DIR: string;
export declare function sourceFingerprint(srcDir?: string): string;
export declare function ensureBundle(): Promise<string>;
