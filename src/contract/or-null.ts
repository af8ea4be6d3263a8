// Nullable fields of the contract, in the one form every JSON Schema reader takes.
import { z } from 'zod';

/**
 * `T | null` as two anyOf branches rather than `type: ["string", "null"]`: clients that map tool
 * schemas onto a single-`type` dialect reject such a tool or drop the constraint (the MCP
 * Inspector's schema-portability check warns about it). zod folds bare type branches into a
 * type array; a branch with a description stays a branch. Use this instead of `.nullable()`.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null().describe('none')]);
