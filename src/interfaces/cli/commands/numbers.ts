import { MoonError } from '../../../errors.js';

/** A flag's value as a positive integer, or a usage error naming the flag. */
export function parsePositive(flag: string, value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0) throw new MoonError('bad_usage', `${flag}: expected a positive integer, got "${value}"`);
  return Number(value);
}

/** A flag's value as a whole number ≥ 0. */
export function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new MoonError('bad_usage', `${flag}: expected a whole number ≥ 0, got "${value}"`);
  return Number(value);
}
