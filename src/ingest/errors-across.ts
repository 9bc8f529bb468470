import { MoonError, type MoonErrorCode } from '../errors.js';

/** An error as it crosses from a worker thread: enough to rebuild it, so the same rules judge it on either side. */
export interface SerializedError {
  message: string;
  /** A MoonError's code, or a Node errno code (ENOENT, EACCES, …). */
  code: string | null;
  moon: boolean;
  hint: string | null;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof MoonError) return { message: error.message, code: error.code, moon: true, hint: error.hint ?? null };
  const code = (error as { code?: unknown } | null)?.code;
  return { message: error instanceof Error ? error.message : String(error), code: typeof code === 'string' ? code : null, moon: false, hint: null };
}

export function reviveError(error: SerializedError): Error {
  if (error.moon) return new MoonError(error.code as MoonErrorCode, error.message, error.hint ? { hint: error.hint } : {});
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}
