import { describe, expect, test } from 'vitest';
import { createEntry, createSession, type Entry, type Session } from '../../src/model.js';
import { createRedactor, createTextNormalizer, normalizeChunk } from '../../src/normalize/index.js';
import type { ParsedChunk } from '../../src/sources/source.js';

const SESSION: Session = createSession({
  id: 'sess-1',
  source: 'claude-code',
  path: '/tmp/sess-1.jsonl',
  project: 'moon',
  cwd: '/work/moon',
  branch: 'main',
  parentSessionId: null,
  startMs: null,
  endMs: null,
});

let line = 0;
function entry(fields: Partial<Entry> & Pick<Entry, 'role' | 'text'>): Entry {
  line++;
  return createEntry({ id: `e${line}`, key: `k${line}`, sessionId: SESSION.id, seq: line * 1000, line, ts: null, ...fields });
}

// Built from pieces so no secret-shaped literal sits in the repository.
const TOKEN = 'gh' + 'p_' + 'aZ3kQ9mX2pL7vB4nR8tY1wE6cU5dF0gH2jK4';
const PASSWORD = 'Qx7' + 'vB4nR8tY1wE6';

function buildChunk(): ParsedChunk {
  line = 0;
  return {
    session: SESSION,
    entries: [
      entry({ role: 'user', text: '\x1b[1mPlease\x1b[0m deploy the app to staging\r\n\r\n\r\n\r\n' }),
      entry({ role: 'user', text: 'ok' }),
      entry({ role: 'assistant', text: 'API Error: 529 overloaded' }),
      entry({
        role: 'tool',
        text: `git push https://bot:${PASSWORD}@github.com/acme/app.git`,
        toolName: 'Bash',
        toolTarget: `git push https://bot:${PASSWORD}@github.com/acme/app.git`,
        result: `Everything up-to-date\n<system-reminder>\nnoise\n</system-reminder>`,
      }),
      entry({ role: 'tool', text: 'src/app.ts', toolName: 'Read', toolTarget: 'src/app.ts', result: null }),
      entry({ role: 'tool', text: '', toolName: 'Bash', toolTarget: '', result: '' }),
      entry({ role: 'assistant', text: 'NO_REPLY' }),
      entry({ role: 'assistant', text: `Set GITHUB_TOKEN=${TOKEN} and retried the push.` }),
      entry({ role: 'system', text: '<system-reminder>only plumbing here</system-reminder>' }),
    ],
    results: [{ key: 'k-earlier', result: `{\\\\"ok\\\\": true, \\\\"token\\\\": \\\\"${TOKEN}\\\\"}`, resultId: 'r1' }],
    anchors: [
      { id: 'a1', sessionId: SESSION.id, ts: null, line: 99, note: `Summary: used ${TOKEN}\n\n\n\nthen pushed`, originId: 'e4' },
    ],
    usage: [],
    skipped: { 'file-history-snapshot': 2 },
    duplicates: 1,
    fork: false,
    carry: { sessionId: SESSION.id },
  };
}

describe('normalizeChunk', () => {
  const redact = createRedactor({ enabled: true });

  test('cleans, redacts, filters and prioritises a chunk end to end', () => {
    const input = buildChunk();
    const snapshot = structuredClone(input);
    const { chunk, filtered, filteredByReason } = normalizeChunk(input, { redact });

    expect(chunk.entries.map((e) => e.id)).toEqual(['e1', 'e4', 'e5', 'e8']);
    expect(filtered).toBe(5);
    expect(filteredByReason).toEqual({ short: 1, 'system-noise': 1, empty: 2, 'no-reply': 1 });

    const [user, push, read, assistant] = chunk.entries;
    expect(user?.text).toBe('Please deploy the app to staging');
    expect(user?.priority).toBeNull();

    expect(push?.text).toBe('git push https://bot:[REDACTED:password]@github.com/acme/app.git');
    expect(push?.toolTarget).toBe(push?.text);
    expect(push?.result).toBe('Everything up-to-date');
    expect(push?.priority).toBe('high');

    expect(read?.priority).toBe('normal');
    expect(read?.result).toBeNull();

    expect(assistant?.text).toBe('Set GITHUB_TOKEN=[REDACTED:github-token] and retried the push.');
    expect(assistant?.priority).toBeNull();

    expect(chunk.results).toEqual([{ key: 'k-earlier', result: '{"ok": true, "token": "[REDACTED:github-token]"}', resultId: 'r1' }]);
    expect(chunk.anchors[0]?.note).toBe('Summary: used [REDACTED:github-token]\n\nthen pushed');

    // Everything else passes through, and the input is not modified.
    expect(chunk.session).toEqual(input.session); // restated with its fields redacted (none hold a secret here)
    expect(chunk.skipped).toEqual({ 'file-history-snapshot': 2 });
    expect(chunk.duplicates).toBe(1);
    expect(chunk.carry).toEqual({ sessionId: SESSION.id });
    expect(input).toEqual(snapshot);
  });

  test('honours minLength', () => {
    const { chunk, filteredByReason } = normalizeChunk(buildChunk(), { redact, minLength: 40 });
    expect(chunk.entries.map((e) => e.id)).toEqual(['e4', 'e5', 'e8']);
    expect(filteredByReason.short).toBe(2);
  });

  test('is deterministic', () => {
    expect(normalizeChunk(buildChunk(), { redact })).toEqual(normalizeChunk(buildChunk(), { redact }));
  });

  test('a tool target that cleans to nothing becomes null', () => {
    line = 0;
    const chunk = { ...buildChunk(), entries: [entry({ role: 'tool', text: 'Task', toolName: 'Task', toolTarget: '  \x1b[0m ' })] };
    expect(normalizeChunk(chunk, { redact }).chunk.entries[0]?.toolTarget).toBeNull();
  });
});

describe('createTextNormalizer', () => {
  test('cleans then redacts', () => {
    const normalize = createTextNormalizer(createRedactor({ enabled: true }));
    expect(normalize(`\x1b[31mtoken\x1b[0m ${TOKEN}  \n`)).toBe('token [REDACTED:github-token]');
    const plain = createTextNormalizer(createRedactor({ enabled: false }));
    expect(plain(`  ${TOKEN}\r\n`)).toBe(TOKEN);
  });
});
