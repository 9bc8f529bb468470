import { MoonError, isMoonError } from '../../errors.js';

/**
 * The library names request fields (`per_session: …`, `since: …`): MCP and HTTP callers wrote fields. On the
 * command line the same mistake names the flag (`--per-session: …`). One translation, for every command.
 */
export function toFlagError(error: unknown): unknown {
  if (!isMoonError(error) || error.field === undefined || !error.message.startsWith(error.field)) return error;
  const flag = `--${error.field.replace(/_/g, '-')}`;
  return new MoonError(error.code, `${flag}${error.message.slice(error.field.length)}`, { hint: error.hint, cause: error });
}
