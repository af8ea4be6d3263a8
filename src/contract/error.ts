// The one body of every Content API response that is not a success.
import { z } from 'zod';
import { API_ERROR_CODES } from './error-codes.ts';

export const ErrorResponseSchema = z.strictObject({
  error: z.strictObject({
    status: z.int().min(400).max(599).describe("The response's HTTP status."),
    code: z.enum(API_ERROR_CODES).describe('Stable: branch on it, not on the message.'),
    message: z.string().describe('What went wrong, for people.'),
  }),
});

export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
