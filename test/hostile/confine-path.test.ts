import fc from 'fast-check';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { MAX_PATH_CHARS, confinePath, isInside, resolveRealPath } from '../../src/archive/confine-path.js';
import { makeTempDir } from '../helpers/cli.js';
import { propertyRuns } from './runs.js';

/**
 * The confinement rule against the operating system: generated paths through a tree of folders and symlinks
 * (in, out, chained, dangling, looping). Whatever confinePath lets through, the OS resolves inside the root;
 * whatever the OS resolves to an existing file inside the root, confinePath lets through.
 */
const RUNS = propertyRuns(300, 20_000);
let temp: { path: string; cleanup: () => void };
let root: string;
let outside: string;

beforeAll(() => {
  temp = makeTempDir('moon-confine-');
  root = join(temp.path, 'root');
  outside = join(temp.path, 'outside');
  mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(outside, 'sub'), { recursive: true });
  for (const dir of [root, join(root, 'sub'), join(root, 'sub', 'deeper'), outside, join(outside, 'sub')]) writeFileSync(join(dir, 'file.json'), '{}');
  symlinkSync(outside, join(root, 'out'));
  symlinkSync(join(root, 'sub'), join(root, 'in'));
  symlinkSync('../..', join(root, 'sub', 'up2'));
  symlinkSync(join(root, 'out'), join(root, 'sub', 'chain'));
  symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
  symlinkSync(join(root, 'sub', 'deeper'), join(outside, 'back'));
  symlinkSync('loop-b', join(root, 'loop-a'));
  symlinkSync('loop-a', join(root, 'loop-b'));
});

afterAll(() => temp.cleanup());

const NAMES = ['..', '.', 'sub', 'deeper', 'out', 'in', 'up2', 'chain', 'dangling', 'back', 'loop-a', 'file.json', 'missing', ''];

/** What the OS says a path leads to, when it exists. */
function osRealPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

describe('confinePath agrees with the operating system', () => {
  test('generated relative paths: allowed ones resolve inside; existing inside ones are allowed', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 8 }), fc.boolean(), (parts, absolute) => {
        const text = parts.join('/') || '.';
        const given = absolute ? join(root, text) : text;
        let allowed: string | null = null;
        try {
          allowed = confinePath(given, { argument: 'path', roots: [root], base: root });
        } catch (error) {
          expect(error).toBeInstanceOf(MoonError);
          expect((error as MoonError).message).toMatch(/^path: /);
        }
        const real = osRealPath(isAbsolute(given) ? given : join(root, given));
        if (allowed !== null && real !== null) expect(isInside(real, realpathSync(root))).toBe(true);
        if (real !== null && isInside(real, realpathSync(root))) expect(allowed).toBe(real);
      }),
      RUNS,
    );
  });

  test('fixed cases: out, chains, dangling links and loops', () => {
    const confine = (path: string) => confinePath(path, { argument: 'path', roots: [root], base: root });
    expect(confine('sub/file.json')).toBe(join(realpathSync(root), 'sub', 'file.json'));
    expect(confine('in/deeper/../file.json')).toBe(join(realpathSync(root), 'sub', 'file.json'));
    expect(confine('out/back/file.json')).toBe(join(realpathSync(root), 'sub', 'deeper', 'file.json'));
    for (const path of ['out/file.json', 'sub/chain/file.json', 'sub/up2/outside/file.json', 'dangling', 'dangling/x', '../outside/file.json', outside]) {
      expect(() => confine(path), path).toThrow(/^path: refused/);
    }
    // A loop stays inside: reading it fails, it leads nowhere else.
    expect(resolveRealPath(join(root, 'loop-a')).startsWith(realpathSync(root) + sep)).toBe(true);
  });

  test('text checks come first: NUL, control characters, encoded separators, length', () => {
    const confine = (path: unknown) => confinePath(path, { argument: 'index', roots: [root], base: root });
    for (const [path, message] of [
      ['file.json\u0000', /control characters/],
      ['\u001bfile.json', /control characters/],
      ['..%2Foutside', /percent-encoded/],
      ['%2e%2e/outside', /percent-encoded/],
      ['a%5cb', /percent-encoded/],
      ['x'.repeat(MAX_PATH_CHARS + 1), /at most 4096/],
      [`${'y'.repeat(256)}/file.json`, /at most 255 bytes/],
      ['', /non-empty/],
      [42, /non-empty/],
    ] as const) {
      expect(() => confine(path), String(path).slice(0, 40)).toThrow(message);
      expect(() => confine(path)).toThrow(/^index: /);
    }
    // %25 is a literal percent: a file of that name inside is fine.
    expect(confine('100%25.json')).toBe(join(realpathSync(root), '100%25.json'));
  });
});
