import { describe, expect, test } from 'vitest';
import { unescapeJsonNoise } from '../../src/normalize/unescape.js';

const bs = (n: number) => '\\'.repeat(n);

describe('unescapeJsonNoise', () => {
  test('applies the seed pre-pass: \\\\" → ", \\\\n → newline, \\\\t → tab, \\\\\\\\ → \\', () => {
    expect(unescapeJsonNoise(`say ${bs(2)}"hi${bs(2)}"`)).toBe('say "hi"');
    expect(unescapeJsonNoise(`one${bs(2)}ntwo`)).toBe('one\ntwo');
    expect(unescapeJsonNoise(`a${bs(2)}tb`)).toBe('a\tb');
    expect(unescapeJsonNoise(`x ${bs(4)} y`)).toBe('x \\ y');
  });

  test('decodes deeply nested escaping down to the plain character', () => {
    // Quote escaped at three levels of JSON nesting: 7 backslashes.
    expect(unescapeJsonNoise(`{${bs(7)}"cmd${bs(7)}": ${bs(7)}"ls${bs(7)}"}`)).toBe('{"cmd": "ls"}');
    // Level two: 3 backslashes, which the seed's fixed replace would leave half-decoded as \".
    expect(unescapeJsonNoise(`${bs(3)}"ok${bs(3)}"`)).toBe('"ok"');
    expect(unescapeJsonNoise(`line${bs(4)}nnext`)).toBe('line\nnext');
    expect(unescapeJsonNoise(`a ${bs(8)} b`)).toBe('a \\ b');
  });

  test('decodes a tool output that is itself a JSON string literal, repeatedly', () => {
    const inner = 'first line\nsecond "quoted" line';
    expect(unescapeJsonNoise(JSON.stringify(inner))).toBe(inner);
    expect(unescapeJsonNoise(JSON.stringify(JSON.stringify(inner)))).toBe(inner);
    expect(unescapeJsonNoise(`  ${JSON.stringify(inner)}\n`)).toBe(inner);
  });

  test('leaves single backslashes alone: ordinary Windows paths, regexes and code', () => {
    const samples = ['C:\\new\\tools\\test.txt', 'match /\\d+\\s*/ here', 'printf("a\\n")', 'echo "say \\"hi\\""'];
    for (const sample of samples) expect(unescapeJsonNoise(sample)).toBe(sample);
  });

  test('collapses a JSON-dumped drive-letter path instead of reading \\\\n as a newline', () => {
    expect(unescapeJsonNoise(`"cwd": "C:${bs(2)}new${bs(2)}tools"`)).toBe('"cwd": "C:\\new\\tools"');
    expect(unescapeJsonNoise(`path D:${bs(4)}repo${bs(4)}tests done`)).toBe('path D:\\repo\\tests done');
  });

  test('tradeoff: a relative path with doubled separators is decoded as the seed implies', () => {
    expect(unescapeJsonNoise(`src${bs(2)}new`)).toBe('src\new');
  });

  test('is stable: a second pass changes nothing', () => {
    const samples = [`a${bs(2)}nb ${bs(3)}"c${bs(3)}"`, JSON.stringify('x\ny'), `C:${bs(2)}x`, `${bs(2)} two ${bs(3)} three`];
    for (const sample of samples) {
      const once = unescapeJsonNoise(sample);
      expect(unescapeJsonNoise(once)).toBe(once);
    }
  });

  test('keeps text that merely looks like a string literal but is not one', () => {
    expect(unescapeJsonNoise('"unterminated "quote" soup"')).toBe('"unterminated "quote" soup"');
    // A quoted phrase with nothing escaped keeps its quotes.
    expect(unescapeJsonNoise('"ship it"')).toBe('"ship it"');
  });

  test('runs in linear time on a 1 MB line', () => {
    const line = `${bs(2)}n${'x'.repeat(50)}C:${bs(2)}a${bs(2)}`.repeat(16_000);
    const started = performance.now();
    unescapeJsonNoise(line);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});
