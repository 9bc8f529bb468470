import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { claudeCodeSource } from '../../src/sources/claude-code.js';
import { codexSource } from '../../src/sources/codex.js';
import { openclawSource } from '../../src/sources/openclaw.js';
import type { Source } from '../../src/sources/source.js';
import {
  anyJson,
  claudeRecord,
  codexRecord,
  describeChunkFaults,
  expectChunkedLikeWhole,
  measureOutput,
  openclawRecord,
  toRecords,
} from './records.js';
import { propertyRuns } from './runs.js';

/**
 * Source adapters against hostile records: whatever the JSON holds, parse() returns well-typed entries of bounded
 * size and never throws, and parsing chunk by chunk (carry round-tripped through JSON) equals parsing whole.
 */

const RUNS = propertyRuns(150, 8_000);
const CLAUDE_PATH = '/home/me/.claude/projects/-home-me-repo/sess.jsonl';
/**
 * A first record that states the session: who the session is must be known from line 1 for a chunked parse to
 * equal a whole one (a chunk's entries are committed under the id known then), as every real file does.
 */
const claudeLead = fc
  .tuple(claudeRecord, fc.constantFrom('user', 'assistant'))
  .map(([value, type]) => ({ ...(value as object), type, sessionId: 's1' }));
const codexLead = codexRecord.map((value) => {
  const payload = (value as { payload?: unknown }).payload;
  return { ...(value as object), type: 'session_meta', payload: { ...(isPlainObject(payload) ? payload : {}), id: 'sess' } };
});
const openclawLead = openclawRecord.map((value) => ({ ...(value as object), type: 'session', id: 'sess' }));

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SOURCES: [string, Source, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>, string][] = [
  ['claude-code', claudeCodeSource, claudeRecord, claudeLead, CLAUDE_PATH],
  ['codex', codexSource, codexRecord, codexLead, '/home/me/.codex/sessions/2026/02/21/rollout-x.jsonl'],
  ['openclaw', openclawSource, openclawRecord, openclawLead, '/home/me/.openclaw/agents/main/sessions/s.jsonl'],
];

/** Record-shaped values mixed with arbitrary JSON, as a file of either would hold them. */
function fileOf(record: fc.Arbitrary<unknown>): fc.Arbitrary<unknown[]> {
  return fc.array(fc.oneof({ weight: 6, arbitrary: record }, { weight: 1, arbitrary: anyJson }), { maxLength: 14 });
}

/** Bound on what a chunk may carry: proportional to the input, plus a fixed allowance per record (names, markers). */
function outputBound(values: readonly unknown[]): number {
  return 8 * JSON.stringify(values).length + 200 * values.length;
}

describe.each(SOURCES)('%s against hostile records', (_name, source, record, lead, path) => {
  test('detect never throws on any head', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(record, anyJson), { maxLength: 5 }), (head) => {
        expect(typeof source.detect(head)).toBe('boolean');
      }),
      RUNS,
    );
  });

  test('parse never throws and returns well-typed, bounded output', () => {
    fc.assert(
      fc.property(fileOf(record), anyJson, (values, sidecar) => {
        const chunk = source.parse(toRecords(values), { path, carry: null, sidecar });
        expect(describeChunkFaults(chunk)).toEqual([]);
        expect(measureOutput(chunk)).toBeLessThanOrEqual(outputBound(values));
        const keys = chunk.entries.map((entry) => entry.key);
        expect(new Set(keys).size, 'entry keys are unique within a chunk').toBe(keys.length);
      }),
      RUNS,
    );
  });

  test('a carry of any shape is survived', () => {
    fc.assert(
      fc.property(fileOf(record), anyJson, (values, carry) => {
        const chunk = source.parse(toRecords(values), { path, carry });
        expect(describeChunkFaults(chunk)).toEqual([]);
      }),
      RUNS,
    );
  });

  test('chunked parsing equals whole-file parsing for any cut points', () => {
    fc.assert(
      fc.property(lead, fileOf(record), fc.array(fc.nat({ max: 15 }), { maxLength: 4 }), (first, rest, cuts) => {
        expectChunkedLikeWhole(source, [first, ...rest], path, cuts);
      }),
      RUNS,
    );
  });
});
