import { describe, expect, test } from 'vitest';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import { codexSource } from '../../src/sources/codex.js';
import { openclawSource } from '../../src/sources/openclaw.js';
import type { Source } from '../../src/sources/source.js';
import { fixturePath, loadRecords, mergeWhole, parseInChunks } from './parse-helpers.js';

const SUBAGENTS = 'claude-code/real-worktrees-session-with-subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1';

const FIXTURES: [string, Source][] = [
  ['claude-code/edge-cases-odd-records.jsonl', claudeCodeSource],
  ['claude-code/real-compaction-compact-boundary.jsonl', claudeCodeSource],
  ['claude-code/real-scrubbed-api-error-thinking.jsonl', claudeCodeSource],
  [`${SUBAGENTS}.jsonl`, claudeCodeSource],
  [`${SUBAGENTS}/subagents/agent-a52886dc180afb356.jsonl`, claudeCodeSource],
  [`${SUBAGENTS}/subagents/agent-aef063ba534d73153.jsonl`, claudeCodeSource],
  ['claude-code/sidechain-inline-task-agent.jsonl', claudeCodeSource],
  ['claude-code/synthetic-compact-after-rewind.jsonl', claudeCodeSource],
  ['claude-code/synthetic-fork-queue-operation.jsonl', claudeCodeSource],
  ['claude-code/synthetic-streaming-split-text.jsonl', claudeCodeSource],
  ['claude-code/synthetic-summary-titles.jsonl', claudeCodeSource],
  ['codex/real-redacted-compacted-long-019c8a59.jsonl', codexSource],
  ['codex/real-redacted-short-dangling-call-019c8a70.jsonl', codexSource],
  ['codex/synthetic-malformed-trailing-line.jsonl', codexSource],
  ['codex/synthetic-spawn-agent-subagent.jsonl', codexSource],
  ['codex/synthetic-tool-variants-unknown-type.jsonl', codexSource],
  ['codex/synthetic-unified-exec.jsonl', codexSource],
  ['pi/real-legacy-v1-with-compaction.jsonl', openclawSource],
  ['pi/synthetic-v3-branching-compaction-unknown-entry.jsonl', openclawSource],
  ['pi/synthetic-v3-error-toolresult-string-content.jsonl', openclawSource],
  ['pi/synthetic-v3-subagent-tool-results.jsonl', openclawSource],
];

/** Cut plans: every single cut for small files, and for all files thirds, a fixed stride and one record per chunk. */
function cutPlans(length: number): number[][] {
  const plans: number[][] = [[Math.floor(length / 3), Math.floor((2 * length) / 3)]];
  if (length <= 60) for (let cut = 1; cut < length; cut += 1) plans.push([cut]);
  const stride = Math.max(1, Math.floor(length / 25));
  plans.push(Array.from({ length: Math.ceil(length / stride) }, (_, index) => index * stride));
  if (length <= 400) plans.push(Array.from({ length }, (_, index) => index));
  return plans;
}

describe('parsing a growing file chunk by chunk equals parsing it whole', () => {
  test.each(FIXTURES)('%s', (fixture, source) => {
    const records = loadRecords(fixture);
    const path = fixturePath(fixture);
    const whole = mergeWhole(source.parse(records, { path, carry: null }));
    for (const cuts of cutPlans(records.length)) {
      const merged = parseInChunks(source, records, path, cuts);
      const plan = `cuts ${cuts.slice(0, 8).join(',')}${cuts.length > 8 ? ',…' : ''}`;
      expect(merged.session, plan).toEqual(whole.session);
      expect(merged.entries, plan).toEqual(whole.entries);
      expect(merged.anchors, plan).toEqual(whole.anchors);
      expect(merged.skipped, plan).toEqual(whole.skipped);
      expect(merged.duplicates, plan).toBe(whole.duplicates);
      expect(merged.fork, plan).toBe(whole.fork);
      expect(merged.lastUsage, plan).toEqual(whole.lastUsage);
    }
  });

  test('a streamed message continued in the next chunk sends only its new text, under the same key', () => {
    const records = loadRecords('claude-code/synthetic-streaming-split-text.jsonl');
    const path = '/x/stream-1.jsonl';
    const first = claudeCodeSource.parse(records.slice(0, 4), { path, carry: null });
    const second = claudeCodeSource.parse(records.slice(4), { path, carry: first.carry });
    expect(first.entries.find((entry) => entry.key === 'msg:msg_1:req_1')?.text).toBe('Let me run the cart tests first.');
    // id, line and seq are the first record's, so the continuation describes the same entry the store holds.
    expect(second.entries.find((entry) => entry.key === 'msg:msg_1:req_1')).toMatchObject({
      id: 's-a2',
      line: 3,
      seq: 3000,
      parentId: 's-a1',
      text: 'The quantity merge drops duplicates.',
    });
    expect(second.results).toEqual([
      { key: 'tool:toolu_run', result: '[error] FAIL cart.test.ts\n  expected 3 items, got 2', resultId: 's-r1', status: 'error' },
    ]);
  });

  test('the carry stays small', () => {
    for (const [fixture, source] of FIXTURES) {
      const records = loadRecords(fixture);
      const chunk = source.parse(records, { path: fixturePath(fixture), carry: null });
      expect(JSON.stringify(chunk.carry).length, fixture).toBeLessThan(32_000);
    }
  });
});
