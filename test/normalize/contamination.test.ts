import { describe, expect, test } from 'vitest';
import type { Entry } from '../../src/model.js';
import { classifyRecallEvent, findContaminated } from '../../src/normalize/contamination.js';
import { makeEntry } from '../project/fixture.js';

/** An entry at position `seq` (its line), with the fixture's defaults. */
function entry(partial: Partial<Entry> & Pick<Entry, 'role' | 'text'>, seq: number): Entry {
  return makeEntry({ sessionId: 's', ts: seq * 1000, ...partial, line: seq });
}

const RECALLED =
  'The JWT refresh token rotation was implemented in src/auth/refresh.ts with a sliding expiry window of seven days and revocation on reuse';

describe('recall contamination', () => {
  test('recall calls, pasted output and memory announcements are recall events', () => {
    expect(classifyRecallEvent(entry({ role: 'tool', toolName: 'Bash', text: 'moon recall "jwt refresh" --json', result: '{}' }, 1))).toBe('recall-call');
    expect(classifyRecallEvent(entry({ role: 'tool', toolName: 'mcp__moon__memory_search', text: 'query: jwt', result: 'x' }, 2))).toBe('recall-call');
    expect(classifyRecallEvent(entry({ role: 'user', text: `{"query":"jwt","matches":[],"generated_at_epoch_secs": 1}` }, 3))).toBe('recall-output');
    expect(classifyRecallEvent(entry({ role: 'assistant', text: "I'll search my memory for the earlier JWT work." }, 4))).toBe('recall-announcement');
    expect(classifyRecallEvent(entry({ role: 'user', text: 'Did you remember what we talked about yesterday?' }, 5))).toBe('recall-announcement');
  });

  test('ordinary searching is not a recall event', () => {
    expect(classifyRecallEvent(entry({ role: 'assistant', text: "I'll search the codebase for the refresh handler." }, 1))).toBeNull();
    expect(classifyRecallEvent(entry({ role: 'tool', toolName: 'Grep', text: 'refresh', result: 'src/auth/refresh.ts:12' }, 2))).toBeNull();
    expect(classifyRecallEvent(entry({ role: 'user', text: 'Can you recall how the retry logic works in the client?' }, 3))).toBeNull();
  });

  test('only the recall and messages quoting it are marked, not earlier work', () => {
    const entries = [
      entry({ role: 'user', text: 'Please fix the flaky migration test in the api project' }, 1),
      entry({ role: 'assistant', text: 'Fixed: the migration test now awaits the pool before asserting.' }, 2),
      entry({ role: 'tool', toolName: 'Bash', text: 'moon recall "jwt refresh"', result: `sess-9 | 3 matches\n[assistant] ${RECALLED}` }, 3),
      entry({ role: 'assistant', text: `From memory: ${RECALLED}. I will reuse that approach.` }, 4),
      entry({ role: 'assistant', text: 'Now adding the new endpoint for password reset emails.' }, 5),
    ];
    const marked = findContaminated(entries);
    expect([...marked.entries()].map(([item, reason]) => [item.id, reason])).toEqual([
      ['e3', 'recall-call'],
      ['e4', 'recall-quote'],
    ]);
  });
});

describe("moon's own human output", () => {
  test('is recognised with or without the outside-window marker', () => {
    const header = 'shop | sess-a | 3 matches | 2026-02-20T18:39:00.000Z | score 1.2';
    expect(classifyRecallEvent(entry({ role: 'user', text: `${header}\n[user] deploy` }, 1))).toBe('recall-output');
    expect(classifyRecallEvent(entry({ role: 'user', text: `${header} | outside the time asked for\n[user] deploy` }, 2))).toBe('recall-output');
  });
});
