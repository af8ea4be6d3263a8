// The codes an API error response may carry: the problem catalogue's `api` area, the one list
// the error schema's enum is made from. No zod here, so the API can name the type cheaply.
import { codesIn, type CodeIn } from '../problems/catalogue.ts';

export const API_ERROR_CODES = codesIn('api');

export type ApiErrorCode = CodeIn<'api'>;
