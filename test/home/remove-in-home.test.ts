import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHomeRelative, relocateHomePath, resolveHomePath, toHomeRelative } from '../../src/archive/home-path.js';
import { removeHomeFile } from '../../src/archive/remove-in-home.js';
import { makeTempDir } from '../helpers/cli.js';

describe('home-relative paths', () => {
  const home = '/srv/moon/home';

  it('a path inside the home becomes relative with forward slashes, and resolves back to itself', () => {
    const part = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,11}$/);
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const absolute = join(home, ...parts);
        const stored = toHomeRelative(home, absolute);
        expect(stored).toBe(parts.join('/'));
        expect(isHomeRelative(stored)).toBe(true);
        expect(resolveHomePath(home, stored)).toBe(absolute);
        expect(resolveHomePath('/elsewhere/copy', stored)).toBe(join('/elsewhere/copy', ...parts));
      }),
    );
  });

  it('a path outside the home stays absolute, whatever it shares with the home', () => {
    for (const outside of ['/srv/moon/home-2/archives/raw/x.jsonl', '/srv/moon/archives/raw/x.jsonl', '/home/me/.claude/projects/a.jsonl', home]) {
      expect(toHomeRelative(home, outside)).toBe(outside);
      expect(resolveHomePath(home, outside)).toBe(outside);
    }
  });

  it('a relative path with .. is not a home-relative path', () => {
    expect(isHomeRelative('archives/../../etc/passwd')).toBe(false);
    expect(isHomeRelative('archives/raw/x.jsonl')).toBe(true);
    expect(isHomeRelative('/archives/raw/x.jsonl')).toBe(false);
  });

  it("an old home's path is relocated only when its home-internal tail exists here", () => {
    const exists = (path: string): boolean => path === join(home, 'archives', 'raw', 'codex', 'a.jsonl');
    expect(relocateHomePath(home, '/old/place/archives/raw/codex/a.jsonl', exists)).toBe('archives/raw/codex/a.jsonl');
    expect(relocateHomePath(home, '/old/place/archives/raw/codex/b.jsonl', exists)).toBe('/old/place/archives/raw/codex/b.jsonl');
    expect(relocateHomePath(home, '/home/me/.claude/projects/a.jsonl', exists)).toBe('/home/me/.claude/projects/a.jsonl');
    expect(relocateHomePath(home, join(home, 'archives', 'mlib', 'z.md'), () => false)).toBe('archives/mlib/z.md');
  });
});

describe('removeHomeFile: the one deletion under a home', () => {
  let dir: ReturnType<typeof makeTempDir>;
  let home: string;
  let outside: string;
  beforeEach(() => {
    dir = makeTempDir('moon-guard-');
    home = join(dir.path, 'home');
    outside = join(dir.path, 'outside');
    mkdirSync(join(home, 'archives', 'raw', 'codex'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.jsonl'), 'keep');
  });
  afterEach(() => dir.cleanup());

  it('removes a file inside the home, named relative or absolute', () => {
    writeFileSync(join(home, 'archives', 'raw', 'codex', 'a.jsonl'), 'a');
    writeFileSync(join(home, 'archives', 'raw', 'codex', 'b.jsonl'), 'b');
    expect(removeHomeFile(home, 'archives/raw/codex/a.jsonl')).toBe('removed');
    expect(removeHomeFile(home, join(home, 'archives', 'raw', 'codex', 'b.jsonl'))).toBe('removed');
    expect(existsSync(join(home, 'archives', 'raw', 'codex', 'a.jsonl'))).toBe(false);
    expect(existsSync(join(home, 'archives', 'raw', 'codex', 'b.jsonl'))).toBe(false);
    expect(removeHomeFile(home, 'archives/raw/codex/a.jsonl')).toBe('absent');
  });

  it('refuses an absolute path outside, a .. path, a symlinked folder leading out, and the home itself', () => {
    symlinkSync(outside, join(home, 'archives', 'raw', 'escape'));
    expect(removeHomeFile(home, join(outside, 'keep.jsonl'))).toBe('outside-home');
    expect(removeHomeFile(home, '../outside/keep.jsonl')).toBe('outside-home');
    expect(removeHomeFile(home, join(home, 'archives', '..', '..', 'outside', 'keep.jsonl'))).toBe('outside-home');
    expect(removeHomeFile(home, 'archives/raw/escape/keep.jsonl')).toBe('outside-home');
    expect(removeHomeFile(home, home)).toBe('outside-home');
    expect(readFileSync(join(outside, 'keep.jsonl'), 'utf8')).toBe('keep');
  });

  it('removes a symlink inside the home, not the file it points at; never a folder', () => {
    symlinkSync(join(outside, 'keep.jsonl'), join(home, 'archives', 'raw', 'codex', 'link.jsonl'));
    expect(removeHomeFile(home, 'archives/raw/codex/link.jsonl')).toBe('removed');
    expect(readFileSync(join(outside, 'keep.jsonl'), 'utf8')).toBe('keep');
    expect(removeHomeFile(home, 'archives/raw/codex')).toBe('not-a-file');
    expect(existsSync(join(home, 'archives', 'raw', 'codex'))).toBe(true);
  });
});
