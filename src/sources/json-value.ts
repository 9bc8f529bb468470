/** Guards every adapter applies to parsed JSONL values, whose shape nothing promises. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, or null: transcripts write "" where they mean "not set". */
export function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
