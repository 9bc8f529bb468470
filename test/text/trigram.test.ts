import { describe, expect, test } from 'vitest';
import { TRIGRAM_BODY_CHARS, buildTrigramBody } from '../../src/text/trigram.js';

describe('buildTrigramBody', () => {
  test('the target, then distinct technical tokens of three or more characters, without the punctuation of prose', () => {
    expect(buildTrigramBody('run the tests run the tests', 'npm test', 'ok passed')).toBe('npm test');
    expect(
      buildTrigramBody('Fixed (setSystemTime) in src/app.ts, then v1.2.3 shipped. See PR #42 and 東京タワー.', null, 'exit 0 after src/app.ts'),
    ).toBe('setSystemTime src/app.ts v1.2.3 #42 東京タワー');
    expect(buildTrigramBody('snake_case and camelCase and kebab-case and plain words', null, null)).toBe('snake_case camelCase kebab-case');
  });

  test('is bounded for a huge target, a huge token and a huge text of few words', () => {
    expect(buildTrigramBody('short text', 'x'.repeat(4_000_000), null).length).toBeLessThanOrEqual(TRIGRAM_BODY_CHARS);
    expect(buildTrigramBody(`head_1 ${'y'.repeat(4_000_000)} tail_2`, null, null)).toBe('head_1');
    const body = buildTrigramBody('alpha_1 beta_2 gamma '.repeat(1_000_000), null, 'delta_4');
    expect(body).toBe('alpha_1 beta_2 delta_4');
  });
});
