import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MoonError } from '../../errors.js';

/** Every error is JSON `{error: {code, message, hint?}}` with the status that says what kind it is. */
export function sendError(c: Context, status: ContentfulStatusCode, code: string, message: string, hint?: string): Response {
  return c.json({ error: { code, message, ...(hint ? { hint } : {}) } }, status);
}

const STATUS: Record<string, ContentfulStatusCode> = {
  bad_usage: 400,
  bad_input: 400,
  bad_config: 500,
  not_found: 404,
  busy: 503,
  model_missing: 503,
  unreadable: 500,
  io: 500,
  store: 503,
  corrupt: 500,
  internal: 500,
};

/** A thrown error as a response: MoonErrors keep their message (they name keys and files, never secrets); others do not. */
export function sendThrown(c: Context, error: unknown): Response {
  if (error instanceof MoonError) return sendError(c, STATUS[error.code] ?? 500, error.code, error.message, error.hint);
  return sendError(c, 500, 'internal', 'internal error (see the server log)');
}
