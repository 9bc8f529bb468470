/** The one error type. Codes are a closed union so callers (and the CLI's exit codes) can switch on them. */
export type MoonErrorCode =
  | 'bad_usage'
  | 'bad_config'
  | 'bad_input'
  | 'not_found'
  | 'unreadable'
  | 'io'
  | 'store'
  /** The index file is damaged (SQLite corruption): `moon rebuild` restores it from the raw archive. */
  | 'corrupt'
  /** Another process holds a lock this run needed and does not wait for (L1, L2, the watcher daemon). */
  | 'busy'
  /**
   * An embedding model moon keeps by name (`embed.model`) is not in $MOON_HOME/models: `moon models pull` brings it.
   * Recall and indexing go on with words only meanwhile (app/shared.ts); a library caller may do the same.
   */
  | 'model_missing'
  | 'internal';

export class MoonError extends Error {
  readonly code: MoonErrorCode;
  readonly hint: string | undefined;
  /**
   * The request field a bad value came from (`limit`, `per_session`), when there is one: the message starts with
   * it, and an interface that names fields otherwise (the CLI's flags) can say it its own way.
   */
  readonly field: string | undefined;

  constructor(code: MoonErrorCode, message: string, options: { hint?: string; cause?: unknown; field?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MoonError';
    this.code = code;
    this.hint = options.hint;
    this.field = options.field;
  }

  /** Exit code for the CLI: 2 for bad usage or input, 1 for runtime failures. */
  get exitCode(): number {
    return this.code === 'bad_usage' || this.code === 'bad_config' || this.code === 'bad_input' || this.code === 'not_found'
      ? 2
      : 1;
  }
}

export function isMoonError(value: unknown): value is MoonError {
  return value instanceof MoonError;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Node's code for a failed system call (ENOSPC, EACCES, …), or undefined. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/**
 * Failures of the machine rather than of one file's content: the same operation may well succeed next run
 * (space freed, device back), so they are never remembered as a file's failure — and running on would only
 * fail every following file the same way.
 */
const ENVIRONMENT_ERRNOS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EMFILE', 'ENFILE', 'ENOMEM']);

export function isEnvironmentError(error: unknown): boolean {
  const code = errnoOf(error);
  return code !== undefined && ENVIRONMENT_ERRNOS.has(code);
}

/** An I/O failure as a MoonError that names the path; disk full gets its own words. */
export function toIoError(path: string, error: unknown, doing = 'write'): MoonError {
  if (isMoonError(error)) return error;
  const code = errnoOf(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new MoonError('io', `cannot ${doing} ${path}: no space left on the device (${code})`, {
      hint: 'free some space and run the command again; what was committed is kept and the rest is redone',
      cause: error,
    });
  }
  return new MoonError('io', `cannot ${doing} ${path}: ${describeError(error)}`, { cause: error });
}
