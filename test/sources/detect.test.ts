import { describe, expect, test } from 'vitest';
import { SOURCES, SOURCE_NAMES, detectDocumentSource, detectSource, isSourceFileName, sourceByName } from '../../src/sources/index.js';
import { readHead } from '../../src/sources/jsonl.js';
import { fixturePath } from './parse-helpers.js';

const SUBAGENTS = 'claude-code/real-worktrees-session-with-subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1';

const FIXTURES: [string, string][] = [
  ['claude-code/edge-cases-odd-records.jsonl', 'claude-code'],
  ['claude-code/real-compaction-compact-boundary.jsonl', 'claude-code'],
  ['claude-code/real-scrubbed-api-error-thinking.jsonl', 'claude-code'],
  [`${SUBAGENTS}.jsonl`, 'claude-code'],
  [`${SUBAGENTS}/subagents/agent-a52886dc180afb356.jsonl`, 'claude-code'],
  [`${SUBAGENTS}/subagents/agent-aef063ba534d73153.jsonl`, 'claude-code'],
  ['claude-code/sidechain-inline-task-agent.jsonl', 'claude-code'],
  ['claude-code/synthetic-compact-after-rewind.jsonl', 'claude-code'],
  ['claude-code/synthetic-fork-queue-operation.jsonl', 'claude-code'],
  ['claude-code/synthetic-streaming-split-text.jsonl', 'claude-code'],
  ['codex/real-redacted-compacted-long-019c8a59.jsonl', 'codex'],
  ['codex/real-redacted-short-dangling-call-019c8a70.jsonl', 'codex'],
  ['codex/synthetic-malformed-trailing-line.jsonl', 'codex'],
  ['codex/synthetic-spawn-agent-subagent.jsonl', 'codex'],
  ['codex/synthetic-tool-variants-unknown-type.jsonl', 'codex'],
  ['pi/real-legacy-v1-with-compaction.jsonl', 'openclaw'],
  ['pi/synthetic-v3-branching-compaction-unknown-entry.jsonl', 'openclaw'],
  ['pi/synthetic-v3-error-toolresult-string-content.jsonl', 'openclaw'],
  ['pi/synthetic-v3-subagent-tool-results.jsonl', 'openclaw'],
];

describe('detection matrix', () => {
  test.each(FIXTURES)('%s is %s and nothing else', (fixture, expected) => {
    const head = readHead(fixturePath(fixture));
    const claims = SOURCES.filter((source) => source.detect(head)).map((source) => source.name);
    expect(claims).toEqual([expected]);
    expect(detectSource(head)?.name).toBe(expected);
  });

  test('the first record alone is enough', () => {
    for (const [fixture, expected] of FIXTURES) {
      expect(detectSource(readHead(fixturePath(fixture), 1))?.name, fixture).toBe(expected);
    }
  });

  test.each([
    ['nothing', []],
    ['non-objects', ['x', 42, [1], null]],
    ['a generic chat log', [{ role: 'user', content: 'hi' }]],
    ['a typed record without any format fields', [{ type: 'user', message: { role: 'user', content: 'hi' } }]],
    ['a session header without an id', [{ type: 'session', cwd: '/w' }]],
    ['codex types without a payload', [{ type: 'response_item', role: 'user' }]],
    ['a Puffin history document', [{ branches: {}, activeBranch: 'main', activePromptId: null }]],
  ])('%s is no format', (_name, head) => {
    expect(detectSource(head)).toBeNull();
  });
});

describe('registry', () => {
  test('every source is found by its name', () => {
    expect(SOURCES.map((source) => source.name)).toEqual(['claude-code', 'codex', 'openclaw', 'puffin']);
    expect(SOURCE_NAMES).toEqual(SOURCES.map((source) => source.name));
    for (const source of SOURCES) expect(sourceByName(source.name)).toBe(source);
    expect(sourceByName('nope')).toBeNull();
  });

  test('a whole-file history is a document source, never a JSON-lines one', () => {
    const history = { branches: { main: { id: 'main', name: 'Main', prompts: [] } }, activeBranch: 'main', activePromptId: null };
    expect(detectSource([history])).toBeNull();
    expect(detectDocumentSource(history)?.name).toBe('puffin');
    expect(detectDocumentSource({ branches: 3 })).toBeNull();
    expect(detectDocumentSource([{ type: 'session' }])).toBeNull();
  });

  test('discovery names: transcripts and .puffin/history.json, nothing else', () => {
    expect(isSourceFileName('/a/b.jsonl')).toBe(true);
    expect(isSourceFileName('/p/.puffin/history.json')).toBe(true);
    expect(isSourceFileName('C:\\p\\.puffin\\history.json')).toBe(true);
    expect(isSourceFileName('/p/history.json')).toBe(false);
    expect(isSourceFileName('/p/package.json')).toBe(false);
  });
});
