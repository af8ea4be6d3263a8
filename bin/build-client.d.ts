/** Builds `quire/client` into `outDir` (client/ by default): index.js and its declarations under types/. */
export declare function buildClient(outDir?: string): Promise<string>;
/** Builds `quire/receiver` (index.js, node:crypto) and `quire/receiver/web` (web.js, Web Crypto) into `outDir` (receiver/ by default), with declarations under types/. */
export declare function buildReceiver(outDir?: string): Promise<string>;
/** Builds `quire/astro` into `outDir` (astro/ by default): index.js and its declarations under types/. */
export declare function buildAstro(outDir?: string): Promise<string>;
