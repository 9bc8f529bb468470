import { describe, expect, test } from 'vitest';
import { FIELD_CHARS, buildSessionFields } from '../../src/digest/session-fields.js';
import { createEntry, type Entry } from '../../src/model.js';

const session = { id: 'sub', title: null, agentDescription: 'Research the cache layout', cwd: '/home/dev/app' };
let seq = 0;
function entry(fields: Partial<Entry> & Pick<Entry, 'role' | 'text'>): Entry {
  seq += 1;
  return createEntry({ id: `e${seq}`, key: `k${seq}`, sessionId: 'sub', seq: seq * 1000, line: seq, ts: seq * 1000, ...fields });
}

describe('buildSessionFields', () => {
  const entries = [
    entry({ role: 'user', text: 'Find out why the cache misses after a deploy.' }),
    entry({ role: 'tool', toolName: 'Read', toolTarget: '/home/dev/app/src/cacheLayout.ts', text: 'src/cacheLayout.ts', result: 'export const layout = 1;' }),
    entry({ role: 'tool', toolName: 'WebFetch', toolTarget: 'https://example.com/docs/cache', text: 'fetch', result: 'ok' }),
    entry({ role: 'tool', toolName: 'Bash', toolTarget: 'npm test', text: 'npm test', result: "TypeError: Cannot read properties of undefined (reading 'key')", exitCode: 1 }),
    entry({ role: 'tool', toolName: 'Edit', toolTarget: '/elsewhere/lib/keys.ts', text: 'edit', result: 'ok' }),
    entry({ role: 'system', kind: 'recap', text: 'Recap: the cache key now includes the build id.' }),
    entry({ role: 'assistant', text: 'The cache key now includes the build id, so a deploy starts cold.' }),
  ];
  const anchors = [
    { id: 'c1', sessionId: 'sub', ts: 1, line: 3, note: 'Conversation compacted (auto, 160000)', originId: null },
    { id: 'c2', sessionId: 'sub', ts: 2, line: 9, note: `Summary: we traced cache misses to keys built without the build id. ${'More detail. '.repeat(5)}`, originId: null },
  ];
  const fields = buildSessionFields({ session, entries, anchors });

  test('title: the own title and a subagent\'s task', () => {
    expect(fields.title).toBe('Research the cache layout');
    expect(buildSessionFields({ session: { ...session, title: 'Cache work' }, entries, anchors }).title).toBe('Cache work\nResearch the cache layout');
  });

  test('summary: compaction summaries and recaps, never a bare compaction marker', () => {
    expect(fields.summary).toContain('traced cache misses');
    expect(fields.summary).toContain('Recap: the cache key');
    expect(fields.summary).not.toContain('Conversation compacted');
  });

  test('files: paths its tools acted on, relative to its folder, with their words split; no URL, no command', () => {
    expect(fields.files).toContain('src/cacheLayout.ts');
    expect(fields.files).toContain('cache layout');
    expect(fields.files).toContain('/elsewhere/lib/keys.ts');
    expect(fields.files).not.toContain('/home/dev/app/');
    expect(fields.files).not.toContain('example.com');
    expect(fields.files).not.toContain('npm test');
  });

  test('errors: what its failing calls printed; digest: the goal, the commands and the outcome', () => {
    expect(fields.errors).toContain('TypeError');
    expect(fields.digest).toContain('Find out why the cache misses');
    expect(fields.digest).toContain('npm test');
  });

  test('every field is bounded whatever the session\'s size; the same input gives the same fields', () => {
    const huge = buildSessionFields({
      session: { ...session, title: 'x'.repeat(10_000) },
      entries: [...entries, ...Array.from({ length: 2000 }, (_, index) => entry({ role: 'tool', toolName: 'Read', toolTarget: `src/file${index}.ts`, text: 'r', result: 'ok' }))],
      anchors: Array.from({ length: 20 }, (_, index) => ({ ...anchors[1]!, id: `s${index}`, note: 'summary words '.repeat(1000) })),
    });
    for (const [field, text] of Object.entries(huge)) expect(text.length).toBeLessThanOrEqual(FIELD_CHARS[field as keyof typeof FIELD_CHARS]);
    expect(buildSessionFields({ session, entries, anchors })).toEqual(fields);
  });
});
