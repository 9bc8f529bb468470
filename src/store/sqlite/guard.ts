import { MoonError, describeError, isMoonError } from '../../errors.js';
import { BatchAbortedError, type Store } from '../store.js';

/** SQLite says the file is damaged or is not a database at all. */
export function isCorruptionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return true;
  return error instanceof Error && /database disk image is malformed|file is not a database/.test(error.message);
}

function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR'));
}

export function corruptIndexError(path: string, error: unknown): MoonError {
  return new MoonError('corrupt', `the index ${path} is damaged (${describeError(error)})`, {
    hint: 'run `moon verify` for details and `moon rebuild` to rebuild it from the raw archive',
    cause: error,
  });
}

/** Turn SQLite's damaged-file and disk errors into MoonErrors that name the database; others pass through. */
export function toStoreError(path: string, error: unknown): unknown {
  if (isMoonError(error)) return error;
  const inner = error instanceof BatchAbortedError ? error.cause : error;
  if (isCorruptionError(inner)) return corruptIndexError(path, inner);
  if (isDiskFull(inner)) {
    return new MoonError('io', `cannot write the index ${path}: ${describeError(inner)}`, {
      hint: 'free some space and run the command again; the last committed state is kept',
      cause: inner,
    });
  }
  return error;
}

/**
 * Every command reaches the index through the Store, so wrapping its methods once is enough to make a damaged
 * file a clear error everywhere — recall, sessions, show, status, index — instead of a stack trace.
 */
export function guardStore<T extends Store>(store: T, path: string): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return (value as (...inner: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw toStoreError(path, error);
        }
      };
    },
  });
}
