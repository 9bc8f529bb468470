/** The one error type. Codes are a closed union so callers (and the CLI's exit codes) can switch on them. */
export type MoonErrorCode =
  | 'bad_usage'
  | 'bad_config'
  | 'bad_input'
  | 'not_found'
  | 'unreadable'
  | 'io'
  | 'store'
  | 'internal';

export class MoonError extends Error {
  readonly code: MoonErrorCode;
  readonly hint: string | undefined;

  constructor(code: MoonErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MoonError';
    this.code = code;
    this.hint = options.hint;
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
