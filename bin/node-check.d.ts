export const MINIMUM_NODE: string;
export function isSupportedNode(version: string): boolean;
export function installedNode(fromFile: string): string | null;
export function tooOldMessage(version: string): string;
export function handOffIfTooOld(scriptFile: string): boolean;
