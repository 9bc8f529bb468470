/**
 * PostgreSQL text cannot hold NUL, and its JSON parser refuses lone surrogates; SQLite stores both. A string on
 * its way to the server has NUL replaced by U+FFFD and is made well-formed — the only change the engine makes
 * to what it is given.
 */
export function cleanText<T extends string | null | undefined>(value: T): T {
  if (typeof value !== 'string') return value;
  const noNul = value.includes('\0') ? value.replace(/\0/g, '\uFFFD') : value;
  return (noNul as string & { toWellFormed(): string }).toWellFormed() as T;
}

/** Every string value of a flat record cleaned. */
export function cleanRecord<T extends Record<string, unknown>>(record: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) out[key] = typeof value === 'string' ? cleanText(value) : value;
  return out as T;
}

/** JSON for a jsonb parameter, every string in it cleaned. */
export function toJsonParam(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'string' ? cleanText(inner) : inner));
}
