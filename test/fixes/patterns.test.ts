import { describe, expect, test } from 'vitest';
import { buildFixPatterns, selectPatterns } from '../../src/fixes/patterns.js';
import type { FixEvent } from '../../src/records/fixes.js';

const SIG = "KeyError: 'customer_id'";
let ts = 0;
function fact(sessionId: string, kind: FixEvent['kind'], fields: Partial<FixEvent> = {}): FixEvent {
  ts += 1;
  return { sessionId, namespace: 'ns-a', repo: null, seq: ts, ts, kind, signature: null, target: null, messageId: `${sessionId}-${ts}`, files: [], fileHashes: {}, commits: [], text: null, ...fields };
}

describe('fix patterns from facts', () => {
  test('a failure in one session, fixed and re-run in a later one: evidence of the later session', () => {
    const patterns = buildFixPatterns(
      [
        fact('s1', 'error', { signature: SIG, target: 'python etl.py' }),
        fact('s1', 'pass', { target: 'ls' }),
        fact('s2', 'edit', { files: ['/w/etl.py'], fileHashes: { '/w/etl.py': 'h1' } }),
        fact('s2', 'pass', { target: 'python etl.py' }),
      ],
      () => 'h1',
    );
    expect(patterns[0]).toMatchObject({ signature: SIG, state: 'verified', worked: 1, sessions: ['s1'] });
    expect(patterns[0]!.evidence[0]).toMatchObject({ session_id: 's2', files: ['/w/etl.py'], message_ids: ['s1-1', 's2-3', 's2-4'] });
  });

  test('passing again with nothing changed is no fix (a flaky check); the pattern stays open', () => {
    const patterns = buildFixPatterns([fact('s1', 'error', { signature: SIG, target: 'pytest' }), fact('s1', 'pass', { target: 'pytest' })], () => null);
    expect(patterns[0]).toMatchObject({ state: 'open', worked: 0, evidence: [] });
  });

  test('namespaces are walked apart: an edit and a pass in another namespace fix nothing here', () => {
    const patterns = buildFixPatterns(
      [
        fact('s1', 'error', { signature: SIG, target: 'pytest' }),
        fact('s2', 'edit', { namespace: 'ns-b', files: ['/b/x.py'] }),
        fact('s2', 'pass', { namespace: 'ns-b', target: 'pytest' }),
      ],
      () => null,
    );
    expect(patterns).toHaveLength(1);
    expect(patterns[0]).toMatchObject({ namespace_id: 'ns-a', state: 'open' });
  });

  test('ranked by fixes that worked, then by occurrences', () => {
    const patterns = buildFixPatterns(
      [
        fact('s1', 'error', { signature: 'often: never fixed', target: 'a' }),
        fact('s1', 'error', { signature: 'often: never fixed', target: 'a' }),
        fact('s1', 'error', { signature: SIG, target: 'b' }),
        fact('s1', 'edit', { files: ['/w/x'] }),
        fact('s1', 'pass', { target: 'b' }),
      ],
      () => null,
    );
    expect(patterns.map((pattern) => [pattern.signature, pattern.count, pattern.worked])).toEqual([
      [SIG, 1, 1],
      ['often: never fixed', 2, 0],
    ]);
    expect(selectPatterns(patterns, 'never').map((pattern) => pattern.signature)).toEqual(['often: never fixed']);
    expect(selectPatterns(patterns, `Traceback (most recent call last):\n  File "/x.py", line 3\n${SIG}`).map((pattern) => pattern.signature)).toEqual([SIG]);
  });
});

describe('evidence is the change that fixed it', () => {
  test("edits of sessions in between are not the fix's files", () => {
    const patterns = buildFixPatterns(
      [
        fact('s1', 'error', { signature: SIG, target: 'pytest' }),
        fact('s2', 'edit', { files: ['/w/unrelated.md'] }),
        fact('s3', 'edit', { files: ['/w/etl.py'] }),
        fact('s3', 'pass', { target: 'pytest' }),
      ],
      () => null,
    );
    expect(patterns[0]!.evidence[0]).toMatchObject({ session_id: 's3', files: ['/w/etl.py'], state: 'verified' });
    expect(patterns[0]!.evidence[0]!.message_ids.filter((id) => id.startsWith('s2-'))).toEqual([]);
  });
});
