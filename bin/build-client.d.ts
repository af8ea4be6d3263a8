/** Builds `quire/client` into `outDir` (client/ by default): index.js and its declarations under types/. */
export declare function buildClient(outDir?: string): Promise<string>;
