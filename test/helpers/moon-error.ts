import { expect } from 'vitest';
import { MoonError } from '../../src/errors.js';

/** What `promise` rejects with, checked to be a MoonError (a promise that resolves fails the test). */
export async function failure(promise: Promise<unknown>): Promise<MoonError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MoonError);
  return error as MoonError;
}
