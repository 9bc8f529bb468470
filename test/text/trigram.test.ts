import { describe, expect, test } from 'vitest';
import { TRIGRAM_BODY_CHARS, buildTrigramBody } from '../../src/text/trigram.js';

describe('buildTrigramBody', () => {
  test('distinct tokens of three or more characters, target first', () => {
    expect(buildTrigramBody('run the tests run the tests', 'npm test', 'ok passed')).toBe('npm test run the tests passed');
  });

  test('is bounded for a huge target, a huge token and a huge text of few words', () => {
    expect(buildTrigramBody('short text', 'x'.repeat(4_000_000), null).length).toBeLessThanOrEqual(TRIGRAM_BODY_CHARS);
    expect(buildTrigramBody(`head ${'y'.repeat(4_000_000)} tail`, null, null)).toBe('head');
    const body = buildTrigramBody('alpha beta gamma '.repeat(1_000_000), null, 'delta');
    expect(body).toBe('alpha beta gamma delta');
  });
});
