import type { Redactor } from '../normalize/redact.js';
import { makeSafeText } from './safe-text.js';

/** Longest string handed out in a structured result (a whole projection fits; a runaway tool output does not). */
export const MAX_VALUE_CHARS = 200_000;

/**
 * A JSON-shaped result made safe to hand an agent: every string in it (keys are moon's own and kept) goes
 * through makeSafeText with the redactor, bounded. Numbers, booleans and null pass as they are.
 */
export function makeSafeValue<T>(value: T, redact?: Redactor, maxChars = MAX_VALUE_CHARS): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return makeSafeText(item, { redact, maxChars });
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(item)) out[key] = walk(inner);
      return out;
    }
    return item;
  };
  return walk(value) as T;
}
