/**
 * Reports built from internal records (status, rebuild, verify…) leave moon with snake_case keys, like every other
 * answer on every door (`first_prompt`, `session_id`, `created_at_ms`). Only keys written in camelCase change:
 * keys that are data — source names, days, hook events, paths — have no capital after a small letter and stay.
 */
export function toWireKeys<T>(value: T): Wire<T> {
  return convert(value) as Wire<T>;
}

/** A record's type as it leaves moon: every camelCase key snake_case, at every depth. */
export type Wire<T> = T extends readonly (infer Item)[]
  ? Wire<Item>[]
  : T extends object
    ? { [Key in keyof T as Key extends string ? SnakeCase<Key> : Key]: Wire<T[Key]> }
    : T;

type SnakeCase<Key extends string> = Key extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : Key;

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object' || !isPlain(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [toSnakeCase(key), convert(inner)]));
}

/** `lastRun` → `last_run`, `dbBytes` → `db_bytes`, `startedAtMs` → `started_at_ms`; `session_id`, `2026-11-29` stay. */
export function toSnakeCase(key: string): string {
  return /^[a-z][A-Za-z0-9]*$/.test(key) ? key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : key;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
