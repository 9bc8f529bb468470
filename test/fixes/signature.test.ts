import { describe, expect, test } from 'vitest';
import { extractErrorSignatures, normalizeErrorSignature } from '../../src/fixes/signature.js';
import * as E from './fixtures/errors.js';

const first = (text: string): string => {
  const found = extractErrorSignatures(text);
  expect(found.length, `no signature in:\n${text}`).toBeGreaterThan(0);
  return found[0]!;
};

describe('error signatures from real error texts', () => {
  const same: [string, string, string][] = [
    ['TypeScript', E.TS_A, E.TS_B],
    ['TypeScript --pretty', E.TS_A, E.TS_PRETTY],
    ['Node TypeError with a stack', E.NODE_MAP_A, E.NODE_MAP_B],
    ['Python traceback', E.PYTHON_A, E.PYTHON_B],
    ['Rust/cargo', E.RUST_A, E.RUST_B],
    ['Go panic', E.GO_A, E.GO_B],
    ['npm', E.NPM_A, E.NPM_B],
    ['pip', E.PIP_A, E.PIP_B],
    ['git', E.GIT_A, E.GIT_B],
    ['git pathspec', E.GIT_PATHSPEC_A, E.GIT_PATHSPEC_B],
    ['shell', E.SHELL_A, E.SHELL_B],
  ];
  test.each(same)('%s: texts differing only in paths and numbers share a signature', (_name, a, b) => {
    expect(first(a)).toBe(first(b));
  });

  const different: [string, string, string][] = [
    ['TypeScript codes', E.TS_A, E.TS_OTHER],
    ["quoted identifier: reading 'map' vs 'filter'", E.NODE_MAP_B, E.NODE_FILTER],
    ['undefined vs null', E.NODE_MAP_B, E.NODE_NULL_MAP],
    ['Python KeyError keys', E.PYTHON_B, E.PYTHON_OTHER_KEY],
    ['Python exception classes', E.PYTHON_B, E.PYTHON_IMPORT],
    ['Rust error codes', E.RUST_B, E.RUST_OTHER],
    ['Go panics', E.GO_A, E.GO_NIL],
    ['npm codes', E.NPM_A, E.NPM_ENOENT],
    ['missing commands', E.SHELL_A, E.SHELL_OTHER],
  ];
  test.each(different)('%s: different errors, different signatures', (_name, a, b) => {
    expect(first(a)).not.toBe(first(b));
  });

  test('the signatures read as the error class and its stable words', () => {
    expect(first(E.TS_A)).toBe("error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.");
    expect(first(E.NODE_MAP_A)).toBe("TypeError: Cannot read properties of undefined (reading 'map')");
    expect(first(E.PYTHON_A)).toBe("KeyError: 'customer_id'");
    expect(first(E.RUST_A)).toBe("error[E0382]: borrow of moved value: 'config'");
    expect(first(E.GO_A)).toBe('panic: runtime error: index out of range [<n>] with length <n>');
    expect(first(E.NPM_A)).toBe('npm ERR! code ERESOLVE');
    expect(first(E.PIP_A)).toBe('ERROR: Could not find a version that satisfies the requirement torch==<n> (from versions: …)');
    expect(first(E.GIT_A)).toBe('fatal: not a git repository (or any of the parent directories): .git');
    expect(first(E.SHELL_A)).toBe('bash: foo: command not found');
    expect(first(E.ZSH)).toBe('zsh: command not found: foo');
    expect(first(E.GIT_PUSH)).toBe("error: failed to push some refs to '<path>'");
  });

  test('hashes, UUIDs, addresses, temp names and timestamps are stripped', () => {
    const a = normalizeErrorSignature('Error: lock held by 3f2a9c1e-55aa-4bcd-8e0f-0123456789ab at 0x7ffee4c0 in /tmp/tmp-4411-xYz since 2024-05-02T10:11:12Z (commit 9fceb02d0ae598e95dc970b74767f19372d61af8)');
    const b = normalizeErrorSignature('Error: lock held by 00000000-1111-2222-3333-444444444444 at 0xdeadbeef in /var/tmp/tmp-9-abc since 2025-12-31T23:59:59.123+01:00 (commit a1b2c3d)');
    expect(a).toBe(b);
    expect(a).not.toMatch(/\d{3}/);
  });

  test('a text without an error has no signature; stack frames are never one', () => {
    expect(extractErrorSignatures('All 12 tests passed in 3.2s')).toEqual([]);
    expect(extractErrorSignatures('    at total (/home/dev/shop/src/cart.js:12:16)')).toEqual([]);
  });
});

describe('bounded', () => {
  test('a huge result is scanned quickly and yields at most three signatures', () => {
    const line = `TypeError: x ${'/a'.repeat(900)}`;
    const text = `${'x'.repeat(1_000_000)}\n${Array.from({ length: 5000 }, (_, index) => `Error: failure number ${index} in 'mod${index % 7}'`).join('\n')}\n${line}`;
    const started = performance.now();
    const found = extractErrorSignatures(text);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(found.length).toBeLessThanOrEqual(3);
    expect(normalizeErrorSignature(`Error: ${'/'.repeat(100_000)}`).length).toBeLessThanOrEqual(160);
  });
});
