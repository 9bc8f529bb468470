import { describe, expect, test } from 'vitest';
import { cleanText } from '../../src/normalize/clean.js';
import { findContaminated, looksLikeRecallOutput } from '../../src/normalize/contamination.js';
import { extractDecisions } from '../../src/normalize/decisions.js';
import { classifyNoise } from '../../src/normalize/filters.js';
import { classifyToken, extractKeywords, extractTextTerms } from '../../src/normalize/keywords.js';
import { classifyPriority, isMutatingCommand } from '../../src/normalize/priority.js';
import { makeEntry } from '../project/fixture.js';

/**
 * Inputs that made a pattern retry a long run from every position. Each case is large enough that the old
 * quadratic behaviour ran for minutes (and so hit the test timeout); no timing is asserted.
 */

describe('noise filters', () => {
  test('a heartbeat subject followed by a long run of spaces', () => {
    const text = `Read the HEARTBEAT.md notes.${' '.repeat(300_000)}then go on`;
    expect(classifyNoise({ role: 'user', text, toolName: null })).toBeNull();
  });

  test('the heartbeat instruction still matches across one line break', () => {
    const text = 'Check HEARTBEAT.md for tasks.\n  reply HEARTBEAT_OK if nothing needs attention';
    expect(classifyNoise({ role: 'user', text, toolName: null })).toBe('heartbeat');
  });
});

describe('recall contamination', () => {
  test('an archive line whose token repeats the folder name', () => {
    const line = `→ ${'archives/mlib/'.repeat(100_000)}x`;
    expect(looksLikeRecallOutput(line)).toBe(false);
    expect(looksLikeRecallOutput(`${line}.md`)).toBe(true);
  });

  test('archive lines as moon prints them, and near misses', () => {
    expect(looksLikeRecallOutput('found it\n→ /home/me/.moon/archives/mlib/sess-a.md\n')).toBe(true);
    expect(looksLikeRecallOutput('→ archives/mlib/.md')).toBe(false);
    expect(looksLikeRecallOutput('→ /home/me/archives/mlib/a b.md')).toBe(false);
    expect(looksLikeRecallOutput('see → /home/me/.moon/archives/mlib/sess-a.md')).toBe(false);
  });

  test('a huge message after a recall is compared by its start', () => {
    const recallCall = makeEntry({ role: 'tool', toolName: 'Bash', text: 'moon recall deploy', result: 'twelve words of recalled text that a later message might quote back verbatim here' });
    const huge = makeEntry({ role: 'assistant', text: `${'unrelated words '.repeat(1_000_000)}` });
    const contaminated = findContaminated([recallCall, huge]);
    expect(contaminated.get(recallCall)).toBe('recall-call');
    expect(contaminated.has(huge)).toBe(false);
  });
});

describe('keywords', () => {
  test('a token of dots that does not end in one', () => {
    expect(classifyToken(`${'.'.repeat(300_000)}a`)).toBeNull();
    expect(classifyToken('src/app.ts...')).toEqual({ term: 'src/app.ts', kind: 'path' });
  });

  test('terms of a message of 300,000 words, without overflowing the stack', () => {
    const words = Array.from({ length: 300_000 }, (_, index) => `term${index % 5000}x`).join(' ');
    expect(extractTextTerms(words).length).toBe(300_000);
    const keywords = extractKeywords([makeEntry({ role: 'user', text: `wrangler deploy notes ${words}` })]);
    expect(keywords).toContain('wrangler');
  });
});

describe('decisions', () => {
  test('a huge message is read for decisions only near its start', () => {
    const text = `We decided to use Postgres for the queue.\n${'filler text here. '.repeat(500_000)}\nWe switched to Redis instead of Postgres.`;
    expect(extractDecisions([makeEntry({ role: 'assistant', text })])).toEqual(['We decided to use Postgres for the queue.']);
  });

  test('a tool call of a million backticks', () => {
    const entry = makeEntry({ role: 'tool', toolName: 'Bash', text: 'x`'.repeat(1_000_000), result: 'done', exitCode: 0, priority: 'high' });
    expect(extractDecisions([entry])[0]).toMatch(/^``x`x/);
  });
});

describe('side-effect priority', () => {
  test('an unclosed string of escaped quotes and a long digit run', () => {
    expect(isMutatingCommand(`echo "${'\\"'.repeat(200_000)}`)).toBe(false);
    expect(isMutatingCommand(`echo ${'1'.repeat(400_000)}`)).toBe(false);
    expect(isMutatingCommand('echo "a > b" 2>&1 >/dev/null')).toBe(false);
    expect(isMutatingCommand('echo hi 2> errors.log')).toBe(true);
  });

  test('a megabyte heredoc command is judged by its start', () => {
    expect(classifyPriority('Bash', `cat > notes.md <<EOF\n${'line\n'.repeat(400_000)}EOF`)).toBe('high');
    expect(classifyPriority('Bash', `ls ${'x'.repeat(4_000_000)}`)).toBe('normal');
  });
});

describe('clean', () => {
  test('a 4 MB token, an unterminated escape and an unclosed wrapper stay linear', () => {
    expect(cleanText('x'.repeat(4_000_000)).length).toBe(4_000_000);
    expect(cleanText(`\x1b[${'0'.repeat(1_000_000)}`).length).toBeGreaterThan(0);
    expect(cleanText(`<system-reminder>${'y '.repeat(1_000_000)}`).startsWith('<system-reminder>')).toBe(true);
  });
});

describe('config tool actions', () => {
  test('a call of blank lines is read once, and the action is still found below them', () => {
    expect(classifyPriority('gateway', '\n'.repeat(60_000))).toBe('normal');
    expect(classifyPriority('gateway', `${'\n'.repeat(60_000)}  action: config.patch`)).toBe('high');
    expect(classifyPriority('gateway', 'action:\n  config.get')).toBe('normal');
  });
});
