import { describe, expect, test } from 'vitest';
import {
  convertSample,
  diaIdOf,
  parseLocomoDateTime,
  sessionNumberOf,
  turnText,
} from '../../bench/recall-eval/convert.mjs';
import {
  CATEGORIES,
  LME_METRIC_KEYS,
  LME_TYPES,
  aggregate,
  dedupeRanked,
  fmt,
  fmtDelta,
  hitAtK,
  mean,
  ndcgAtK,
  percentile,
  recallAllAtK,
  recallAtK,
  scoreLongMemEval,
  scoreQuestion,
} from '../../bench/recall-eval/metrics.mjs';

describe('recallAtK', () => {
  test('fraction of the relevant ids in the top k', () => {
    const ranked = ['D1:1', 'D1:2', 'D2:5', 'D3:1', 'D4:4', 'D5:9'];
    expect(recallAtK(ranked, ['D1:2'], 1)).toBe(0);
    expect(recallAtK(ranked, ['D1:2'], 2)).toBe(1);
    expect(recallAtK(ranked, ['D1:2', 'D5:9'], 5)).toBe(0.5);
    expect(recallAtK(ranked, ['D1:2', 'D5:9'], 10)).toBe(1);
    expect(recallAtK(ranked, ['D9:9'], 10)).toBe(0);
  });

  test('fewer results than k, or none, are misses, not errors', () => {
    expect(recallAtK(['a'], ['a', 'b'], 10)).toBe(0.5);
    expect(recallAtK([], ['a'], 5)).toBe(0);
  });

  test('no relevant ids: null (left out of averages)', () => {
    expect(recallAtK(['a'], [], 5)).toBeNull();
  });

  test('duplicate relevant ids count once; duplicate results earn credit once and do not push others out', () => {
    expect(recallAtK(['a', 'b'], ['a', 'a', 'b'], 5)).toBe(1);
    expect(recallAtK(['a', 'a', 'b'], ['a', 'b'], 2)).toBe(1);
  });

  test('session numbers work like ids', () => {
    expect(recallAtK([3, 1, 7], [1, 7], 2)).toBe(0.5);
    expect(recallAtK([3, 1, 7], [1, 7], 3)).toBe(1);
  });

  test('a bad k throws', () => {
    expect(() => recallAtK(['a'], ['a'], 0)).toThrow(RangeError);
  });
});

describe('hitAtK', () => {
  test('1 when any relevant id is in the top k', () => {
    expect(hitAtK(['x', 'a'], ['a', 'b'], 1)).toBe(0);
    expect(hitAtK(['x', 'a'], ['a', 'b'], 2)).toBe(1);
    expect(hitAtK(['x'], [], 2)).toBeNull();
  });
});

describe('recallAllAtK', () => {
  test('1 only when every relevant id is in the top k', () => {
    expect(recallAllAtK(['a', 'x', 'b'], ['a', 'b'], 3)).toBe(1);
    expect(recallAllAtK(['a', 'x', 'b'], ['a', 'b'], 2)).toBe(0);
    expect(recallAllAtK(['a', 'x', 'b'], ['a'], 1)).toBe(1);
    expect(recallAllAtK([], ['a'], 5)).toBe(0);
  });

  test('duplicates neither fill the top k nor count twice; nothing relevant is null; a bad k throws', () => {
    // 'a' twice: the deduped top 2 is a, b.
    expect(recallAllAtK(['a', 'a', 'b'], ['a', 'b', 'b'], 2)).toBe(1);
    expect(recallAllAtK(['a'], [], 5)).toBeNull();
    expect(() => recallAllAtK(['a'], ['a'], 0)).toThrow(RangeError);
  });
});

describe('ndcgAtK', () => {
  test('one relevant id: 1 / log2(rank + 1)', () => {
    expect(ndcgAtK(['a'], ['a'], 10)).toBe(1);
    expect(ndcgAtK(['x', 'a'], ['a'], 10)).toBeCloseTo(1 / Math.log2(3), 12);
    expect(ndcgAtK(['x', 'y', 'a'], ['a'], 10)).toBeCloseTo(0.5, 12);
  });

  test('normalised by the ideal ranking of min(|relevant|, k) hits', () => {
    // Relevant at ranks 1 and 3 of two: (1 + 1/2) / (1 + 1/log2(3)).
    expect(ndcgAtK(['a', 'x', 'b'], ['a', 'b'], 10)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3)), 12);
    // Three relevant, k = 2, both top slots relevant: perfect.
    expect(ndcgAtK(['a', 'b', 'x'], ['a', 'b', 'c'], 2)).toBe(1);
  });

  test('hits beyond k do not count; nothing relevant is null', () => {
    expect(ndcgAtK(['x', 'y', 'a'], ['a'], 2)).toBe(0);
    expect(ndcgAtK(['a'], [], 10)).toBeNull();
  });

  test('a duplicated hit counts once', () => {
    expect(ndcgAtK(['a', 'a'], ['a', 'b'], 10)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
  });
});

describe('mean, percentile, dedupeRanked', () => {
  test('mean ignores nulls; empty is null', () => {
    expect(mean([1, null, 0, 0.5])).toBe(0.5);
    expect(mean([null])).toBeNull();
    expect(mean([])).toBeNull();
  });

  test('nearest-rank percentile', () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 90)).toBe(9);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(10);
    expect(percentile([42], 95)).toBe(42);
    expect(percentile([], 50)).toBeNull();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  test('percentile does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  test('dedupeRanked keeps first occurrences in order', () => {
    expect(dedupeRanked(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});

describe('scoreQuestion and aggregate', () => {
  test('every metric of one question', () => {
    const metrics = scoreQuestion({
      turnRanked: ['D2:1', 'D1:3', 'D9:9', 'D4:2', 'D5:5', 'D1:1'],
      sessionRanked: [2, 1, 9],
      evidence: ['D1:3', 'D1:1'],
      evidenceSessions: [1],
    });
    expect(metrics.turnR1).toBe(0);
    expect(metrics.turnR5).toBe(0.5);
    expect(metrics.turnR10).toBe(1);
    expect(metrics.ndcg10).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(7)) / (1 + 1 / Math.log2(3)), 12);
    expect(metrics.sessR1).toBe(0);
    expect(metrics.sessR5).toBe(1);
    expect(metrics.sessR10).toBe(1);
  });

  test('averages per category and overall; empty categories are null with n = 0', () => {
    const full = { turnR1: 1, turnR5: 1, turnR10: 1, ndcg10: 1, sessR1: 1, sessR5: 1, sessR10: 1 };
    const none = { turnR1: 0, turnR5: 0, turnR10: 0, ndcg10: 0, sessR1: 0, sessR5: 0, sessR10: 0 };
    const result = aggregate([
      { category: 1, metrics: full },
      { category: 1, metrics: none },
      { category: 4, metrics: full },
    ]);
    expect(result.overall.n).toBe(3);
    expect(result.overall.turnR5).toBeCloseTo(2 / 3, 12);
    expect(result.byCategory[1]).toMatchObject({ n: 2, turnR5: 0.5, sessR10: 0.5 });
    expect(result.byCategory[4]).toMatchObject({ n: 1, turnR5: 1 });
    expect(result.byCategory[2]).toMatchObject({ n: 0, turnR5: null });
    expect(Object.keys(result.byCategory).map(Number)).toEqual(CATEGORIES.map((category) => category.id));
  });
});

describe('LongMemEval scoring', () => {
  test('session recall_all@5, recall_any@5, NDCG@5 and turn recall@10 of one question', () => {
    // Gold sessions g1 (rank 2) and g2 (rank 6, outside the top 5); gold turns: one of three in the top 10.
    const metrics = scoreLongMemEval({
      sessionRanked: ['s9', 'g1', 's8', 's7', 's6', 'g2'],
      goldSessions: ['g1', 'g2'],
      turnRanked: ['g1:0', 'x:1', 'g1:2', 'x:3'],
      goldTurns: ['g1:2', 'g2:4', 'g2:5'],
    });
    expect(metrics.recallAll5).toBe(0);
    expect(metrics.recallAny5).toBe(1);
    // DCG = 1/log2(3); ideal DCG for two relevant = 1 + 1/log2(3).
    expect(metrics.ndcg5).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
    expect(metrics.ndcg5).toBeCloseTo(0.38685, 5);
    expect(metrics.turnR10).toBeCloseTo(1 / 3, 12);
  });

  test('every gold session in the top 5; a gold turn past rank 10 does not count', () => {
    const turnRanked = ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 'g:0'];
    const metrics = scoreLongMemEval({ sessionRanked: ['a', 'x', 'b'], goldSessions: ['a', 'b'], turnRanked, goldTurns: ['g:0'] });
    expect(metrics).toMatchObject({ recallAll5: 1, recallAny5: 1, turnR10: 0 });
    // Relevant at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3)) ≈ 0.91972.
    expect(metrics.ndcg5).toBeCloseTo(0.91972, 5);
  });

  test('nothing found: zeros, not nulls', () => {
    expect(scoreLongMemEval({ sessionRanked: [], goldSessions: ['a'], turnRanked: [], goldTurns: ['a:0'] })).toEqual({ recallAll5: 0, recallAny5: 0, ndcg5: 0, turnR10: 0 });
  });

  test('averages per question type and overall', () => {
    const hit = { recallAll5: 1, recallAny5: 1, ndcg5: 1, turnR10: 0.5 };
    const half = { recallAll5: 0, recallAny5: 1, ndcg5: 0.5, turnR10: 0 };
    const result = aggregate(
      [
        { category: 'multi-session', metrics: hit },
        { category: 'multi-session', metrics: half },
        { category: 'knowledge-update', metrics: half },
      ],
      LME_TYPES,
      LME_METRIC_KEYS,
    );
    expect(result.byCategory['multi-session']).toEqual({ n: 2, recallAll5: 0.5, recallAny5: 1, ndcg5: 0.75, turnR10: 0.25 });
    expect(result.byCategory['knowledge-update']).toEqual({ n: 1, ...half });
    expect(result.byCategory['temporal-reasoning']).toEqual({ n: 0, recallAll5: null, recallAny5: null, ndcg5: null, turnR10: null });
    expect(result.overall.recallAll5).toBeCloseTo(1 / 3, 12);
    expect(result.overall.ndcg5).toBeCloseTo(2 / 3, 12);
    expect(Object.keys(result.byCategory)).toEqual(LME_TYPES.map((type) => type.id));
    expect(LME_TYPES.map((type) => type.id)).toEqual([
      'multi-session',
      'temporal-reasoning',
      'knowledge-update',
      'single-session-user',
      'single-session-assistant',
      'single-session-preference',
    ]);
  });
});

describe('formatting', () => {
  test('fmt and fmtDelta', () => {
    expect(fmt(0.12345)).toBe('0.123');
    expect(fmt(null)).toBe('—');
    expect(fmtDelta(0.75, 0.7)).toBe('+0.050');
    expect(fmtDelta(0.7, 0.75)).toBe('−0.050');
    expect(fmtDelta(0.7, 0.7)).toBe('±0.000');
    expect(fmtDelta(0.70001, 0.7)).toBe('±0.000');
    expect(fmtDelta(null, 0.7)).toBe('—');
  });
});

describe('LoCoMo conversion helpers', () => {
  test('session date/times are read as UTC', () => {
    expect(new Date(parseLocomoDateTime('1:56 pm on 8 May, 2023')).toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(new Date(parseLocomoDateTime('12:09 am on 13 September, 2023')).toISOString()).toBe('2023-09-13T00:09:00.000Z');
    expect(new Date(parseLocomoDateTime('12:30 pm on 1 January, 2024')).toISOString()).toBe('2024-01-01T12:30:00.000Z');
    expect(() => parseLocomoDateTime('yesterday')).toThrow();
    expect(() => parseLocomoDateTime('1:56 pm on 31 February, 2023')).toThrow();
  });

  test('ids map back to their own conversation only', () => {
    expect(diaIdOf('conv-1:D3:4', 'conv-1')).toBe('D3:4');
    expect(diaIdOf('conv-10:D3:4', 'conv-1')).toBeNull();
    expect(sessionNumberOf('conv-1-s12', 'conv-1')).toBe(12);
    expect(sessionNumberOf('conv-10-s12', 'conv-1')).toBeNull();
  });

  test('a sample becomes one transcript per session with alternating roles and unique request ids', () => {
    // A made-up two-session sample (not LoCoMo data).
    const sample = {
      sample_id: 'demo-1',
      conversation: {
        speaker_a: 'Ann',
        speaker_b: 'Bob',
        session_1_date_time: '9:00 am on 2 March, 2023',
        session_1: [
          { speaker: 'Ann', dia_id: 'D1:1', text: 'Hello there, Bob.' },
          { speaker: 'Bob', dia_id: 'D1:2', text: 'Hi Ann, look at this.', blip_caption: 'a photo of a cat' },
          { speaker: 'Bob', dia_id: 'D1:3', text: 'It is my new cat.' },
        ],
        session_2_date_time: '6:15 pm on 10 March, 2023',
        session_2: [{ speaker: 'Ann', dia_id: 'D2:1', text: 'How is the cat doing?' }],
        session_3_date_time: '6:15 pm on 11 March, 2023',
      },
    };
    const converted = convertSample(sample);
    expect(converted.sessions.map((session) => session.sessionId)).toEqual(['demo-1-s1', 'demo-1-s2']);
    const [first, second, third] = converted.sessions[0]!.records as Record<string, any>[];
    expect(first).toMatchObject({
      type: 'user',
      uuid: 'demo-1:D1:1',
      parentUuid: null,
      sessionId: 'demo-1-s1',
      cwd: '/locomo/demo-1',
      timestamp: '2023-03-02T09:00:00.000Z',
      message: { role: 'user', content: 'Ann: Hello there, Bob.' },
    });
    expect(second).toMatchObject({
      type: 'assistant',
      uuid: 'demo-1:D1:2',
      parentUuid: 'demo-1:D1:1',
      timestamp: '2023-03-02T09:00:30.000Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Bob: Hi Ann, look at this. [image: a photo of a cat]' }] },
    });
    expect(third!.requestId).not.toBe(second!.requestId);
    expect(third!.message.id).not.toBe(second!.message.id);
    expect(converted.lastEndMs).toBe(Date.parse('2023-03-10T18:15:00.000Z'));
    expect(turnText({ speaker: 'Ann', dia_id: 'D1:1', text: 'x', blip_caption: '  ' })).toBe('Ann: x');
  });
});
