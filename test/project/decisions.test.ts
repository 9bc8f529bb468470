import { describe, expect, it } from 'vitest';
import { extractDecisions, MAX_DECISION_CHARS, MAX_DECISIONS, summarizeResult } from '../../src/normalize/decisions.js';
import { buildBasicDoc, makeEntry } from './fixture.js';

describe('extractDecisions', () => {
  it('keeps sentences that state decisions or outcomes, and high-priority tool outcomes', () => {
    const decisions = extractDecisions(buildBasicDoc().entries);
    expect(decisions).toEqual([
      '`cargo build --release` → exit 101: error[E0432]: unresolved import `better_sqlite3`',
      'The root cause is a missing feature flag in Cargo.toml.',
      "We'll use the `bundled` feature instead of linking the system SQLite.",
      'Edited /Users/dev/moon-app/Cargo.toml',
      '`cargo build --release` → exit 0: Finished release [optimized] target(s) in 42.1s',
      'Decided to load them from `.env` via dotenv; confirmed `MOON_HOME` is read at CLI startup.',
      'Wrote /Users/dev/moon-app/.env',
      'All tests pass locally with `npm test`.',
    ]);
  });

  it('skips normal-priority tools, dangling calls, code blocks and non-decisions', () => {
    const entries = [
      makeEntry({ line: 1, role: 'assistant', text: 'Here is the file listing.\n```\n// we decided nothing here\n```\nLet\'s go with Postgres for storage.' }),
      makeEntry({ line: 2, role: 'tool', toolName: 'Read', toolTarget: 'a.ts', text: 'Read a.ts', priority: 'normal', result: 'x' }),
      makeEntry({ line: 3, role: 'tool', toolName: 'Bash', toolTarget: 'rm -rf dist', text: 'rm -rf dist', priority: 'high', result: null }),
      makeEntry({ line: 4, role: 'system', text: 'Decided by the system prompt.' }),
    ];
    expect(extractDecisions(entries)).toEqual(["Let's go with Postgres for storage."]);
    const abbreviated = makeEntry({ line: 5, role: 'user', text: 'We switched to a bundler, e.g. esbuild, for speed. ok' });
    expect(extractDecisions([abbreviated])).toEqual(['We switched to a bundler, e.g. esbuild, for speed.']);
  });

  it('deduplicates, bounds line length and count, preferring stated decisions', () => {
    const repeated = makeEntry({ line: 1, role: 'user', text: 'We switched to pnpm. we switched to pnpm!' });
    const long = makeEntry({ line: 2, role: 'assistant', text: `Fixed ${'the very long explanation '.repeat(20)}` });
    const many = Array.from({ length: 30 }, (_, i) => makeEntry({ line: 10 + i, role: 'assistant', text: `Resolved issue number ${i} today.` }));
    const tools = Array.from({ length: 5 }, (_, i) => makeEntry({ line: 100 + i, role: 'tool', toolName: 'Edit', toolTarget: `f${i}.ts`, text: 'Edit', priority: 'high', result: 'ok' }));
    const decisions = extractDecisions([...tools, long, repeated, ...many]);
    expect(decisions).toHaveLength(MAX_DECISIONS);
    expect(decisions[0]).toBe('We switched to pnpm.');
    expect(decisions.filter((d) => d.toLowerCase().startsWith('we switched'))).toHaveLength(1);
    expect(Array.from(decisions[1] as string)).toHaveLength(MAX_DECISION_CHARS);
    expect(decisions[1]?.endsWith('…')).toBe(true);
    expect(decisions.some((d) => d.startsWith('Edited'))).toBe(false);
    expect(extractDecisions(tools)).toEqual(['Edited f0.ts', 'Edited f1.ts', 'Edited f2.ts', 'Edited f3.ts', 'Edited f4.ts']);
  });

  it('summarizes results by exit code or first line', () => {
    expect(summarizeResult('build ok\nexit code: 0')).toBe('exit 0: build ok');
    expect(summarizeResult('Process exited with code 2')).toBe('exit 2');
    expect(summarizeResult('\n\nfirst line\nsecond')).toBe('first line');
    expect(summarizeResult(null)).toBe('(no result)');
  });
});
