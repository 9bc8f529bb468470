import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createFtsIndex, ftsMatchQuery, rankFromTurns } from '../../bench/recall-eval/fts5-naive.mjs';
import { writeDocsSection } from '../../bench/recall-eval/harness.mjs';
import {
  type LmeQuestionData,
  buildLmeQuestions,
  collectSessions,
  goldCopies,
  goldOf,
  parseLmeDate,
  sessionRecords,
} from '../../bench/recall-eval/longmemeval.mjs';

// Made-up questions in LongMemEval's shape (not LongMemEval data).
const petQuestion: LmeQuestionData = {
  question_id: 'q1',
  question_type: 'single-session-user',
  question: 'What is the name of my cat?',
  answer: 'Miso',
  question_date: '2023/05/30 (Tue) 10:18',
  haystack_session_ids: ['filler_1', 'pets_1'],
  haystack_dates: ['2023/05/20 (Sat) 15:08', '2023/05/21 (Sun) 00:51'],
  haystack_sessions: [
    [
      { role: 'user', content: 'Suggest a pasta recipe.' },
      { role: 'assistant', content: 'Try cacio e pepe.' },
    ],
    [
      { role: 'assistant', content: 'How can I help?' },
      { role: 'user', content: 'My cat Miso keeps scratching the sofa.', has_answer: true },
      { role: 'assistant', content: 'Cats scratch to mark territory.' },
      { role: 'assistant', content: 'A scratching post helps.' },
    ],
  ],
  answer_session_ids: ['pets_1'],
};
const travelQuestion: LmeQuestionData = {
  question_id: 'q2',
  question_type: 'multi-session',
  question: 'How many trips did I book?',
  answer: '2',
  question_date: '2023/06/02 (Fri) 09:00',
  haystack_session_ids: ['trip_a', 'filler_1', 'trip_b', 'trip_a'],
  haystack_dates: ['2023/05/01 (Mon) 08:00', '2023/05/25 (Thu) 12:00', '2023/05/02 (Tue) 08:00', '2023/05/01 (Mon) 08:00'],
  haystack_sessions: [
    [{ role: 'user', content: 'I booked a trip to Lisbon.', has_answer: true }],
    [
      { role: 'user', content: 'Suggest a pasta recipe.' },
      { role: 'assistant', content: 'Try cacio e pepe.' },
    ],
    [
      { role: 'user', content: 'Anything else?', has_answer: false },
      { role: 'user', content: 'I booked Oslo too.', has_answer: true },
    ],
    [{ role: 'user', content: 'I booked a trip to Lisbon.', has_answer: true }],
  ],
  // Lists a session with no has_answer turn: the gold follows has_answer.
  answer_session_ids: ['trip_a', 'trip_b', 'filler_1'],
};

describe('LongMemEval dates', () => {
  test('read as UTC; the weekday must match the date', () => {
    expect(new Date(parseLmeDate('2023/05/30 (Tue) 10:18')).toISOString()).toBe('2023-05-30T10:18:00.000Z');
    expect(new Date(parseLmeDate('2024/02/29 (Thu) 00:05')).toISOString()).toBe('2024-02-29T00:05:00.000Z');
    expect(() => parseLmeDate('2023/05/30 (Wed) 10:18')).toThrow(/weekday/);
    expect(() => parseLmeDate('2023/02/30 (Thu) 10:18')).toThrow();
    expect(() => parseLmeDate('30 May 2023')).toThrow();
  });
});

describe('LongMemEval gold and questions', () => {
  test('gold sessions hold a has_answer turn; gold turns are "<session_id>:<turn index>"', () => {
    expect(goldOf(petQuestion)).toEqual({ sessions: ['pets_1'], turns: ['pets_1:1'] });
    // trip_a twice in the haystack: counted once; has_answer false is not gold.
    expect(goldOf(travelQuestion)).toEqual({ sessions: ['trip_a', 'trip_b'], turns: ['trip_a:0', 'trip_b:1'] });
  });

  test('questions carry their "now" in UTC ISO; answer_session_ids that differ from the gold are reported', () => {
    const noGold: LmeQuestionData = { ...petQuestion, question_id: 'q3', haystack_sessions: [petQuestion.haystack_sessions[0]!, [{ role: 'user', content: 'hi' }]] };
    const { questions, skipped, answerIdsDiffer } = buildLmeQuestions([petQuestion, travelQuestion, noGold]);
    expect(questions.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(questions[0]).toMatchObject({ type: 'single-session-user', nowIso: '2023-05-30T10:18:00.000Z', goldSessions: ['pets_1'], goldTurns: ['pets_1:1'] });
    expect(skipped).toEqual(['q3']);
    expect(answerIdsDiffer).toEqual([{ questionId: 'q2', gold: ['trip_a', 'trip_b'], answerSessionIds: ['trip_a', 'trip_b', 'filler_1'] }]);
  });
});

describe('LongMemEval sessions and transcripts', () => {
  test('each session id once, the first occurrence kept; other dates and other content are reported', () => {
    const changed: LmeQuestionData = {
      ...petQuestion,
      question_id: 'q4',
      haystack_session_ids: ['pets_1'],
      haystack_dates: ['2023/05/21 (Sun) 00:51'],
      haystack_sessions: [[{ role: 'user', content: 'Something else entirely.' }]],
    };
    const { sessions, repeats, contentConflicts, dateVariants } = collectSessions([petQuestion, travelQuestion, changed]);
    expect([...sessions.keys()]).toEqual(['filler_1', 'pets_1', 'trip_a', 'trip_b']);
    // filler_1 again (other date), trip_a again (same date, same content), pets_1 again (other content).
    expect(repeats).toBe(3);
    expect(dateVariants).toEqual(['filler_1']);
    expect(contentConflicts).toEqual([{ sessionId: 'pets_1', questionId: 'q4' }]);
    expect(sessions.get('filler_1')).toMatchObject({ questionId: 'q1', startMs: Date.parse('2023-05-20T15:08:00Z') });
    expect(sessions.get('pets_1')!.turns).toHaveLength(4);
  });

  test('one record per turn: uuids map to turn ids, every assistant turn its own message and request id', () => {
    const session = collectSessions([petQuestion]).sessions.get('pets_1')!;
    const records = sessionRecords(session) as Record<string, any>[];
    expect(records.map((record) => record.uuid)).toEqual(['pets_1:0', 'pets_1:1', 'pets_1:2', 'pets_1:3']);
    expect(records.map((record) => record.type)).toEqual(['assistant', 'user', 'assistant', 'assistant']);
    expect(records[1]).toMatchObject({
      parentUuid: 'pets_1:0',
      sessionId: 'pets_1',
      cwd: '/longmemeval',
      timestamp: '2023-05-21T00:51:30.000Z',
      message: { role: 'user', content: 'My cat Miso keeps scratching the sofa.' },
    });
    expect(records[2]).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'Cats scratch to mark territory.' }] } });
    const assistants = records.filter((record) => record.type === 'assistant');
    expect(new Set(assistants.map((record) => record.requestId)).size).toBe(3);
    expect(new Set(assistants.map((record) => record.message.id)).size).toBe(3);
  });
});

describe('fts5-naive', () => {
  test('the question words, quoted and OR-ed; punctuation-only words dropped; quotes doubled', () => {
    expect(ftsMatchQuery('What is   my cat\'s name?')).toBe('"What" OR "is" OR "my" OR "cat\'s" OR "name?"');
    expect(ftsMatchQuery('Say "hi" — now ?')).toBe('"Say" OR """hi""" OR "now"');
    expect(ftsMatchQuery(' ?! ')).toBe('');
  });

  test('sessions rank by their best turn; both lists stop at the limit', () => {
    const rows = [
      { sessionId: 'b', turn: 3 },
      { sessionId: 'a', turn: 0 },
      { sessionId: 'b', turn: 1 },
      { sessionId: 'c', turn: 2 },
    ];
    expect(rankFromTurns(rows, 10)).toEqual({ turnRanked: ['b:3', 'a:0', 'b:1', 'c:2'], sessionRanked: ['b', 'a', 'c'] });
    expect(rankFromTurns(rows, 2)).toEqual({ turnRanked: ['b:3', 'a:0'], sessionRanked: ['b', 'a'] });
  });

  test('an FTS5 index of the turns finds the gold turn and session first', () => {
    const index = createFtsIndex(collectSessions([petQuestion, travelQuestion]).sessions.values());
    try {
      const found = index.search('What is the name of my cat?', 3);
      expect(found.turnRanked[0]).toBe('pets_1:1');
      expect(found.sessionRanked[0]).toBe('pets_1');
      // Porter stemming: "booking" matches "booked".
      expect(index.search('booking', 10).sessionRanked.sort()).toEqual(['trip_a', 'trip_b']);
      expect(index.search('?', 10)).toEqual({ turnRanked: [], sessionRanked: [] });
    } finally {
      index.close();
    }
  });
});

describe('docs sections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'moon-docs-section-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const LOCOMO = '## Recall quality on LoCoMo (dev split)';
  const LME = '## Recall quality on LongMemEval (dev split)';

  test('a new section goes right after the one it follows; a second write replaces only it', () => {
    const file = join(dir, 'benchmarks.md');
    writeFileSync(file, `# Benchmarks\n\nIntro.\n\n${LOCOMO}\n\nLoCoMo figures.\n\n### Overall\n\nrows\n\n## Ingest\n\nIngest figures.\n`);
    writeDocsSection(file, LME, `${LME}\n\nFirst figures.\n`, { after: LOCOMO });
    expect(readFileSync(file, 'utf8')).toBe(
      `# Benchmarks\n\nIntro.\n\n${LOCOMO}\n\nLoCoMo figures.\n\n### Overall\n\nrows\n\n${LME}\n\nFirst figures.\n\n## Ingest\n\nIngest figures.\n`,
    );
    writeDocsSection(file, LME, `${LME}\n\nSecond figures.\n\n### Pooled\n\nrows\n`, { after: LOCOMO });
    expect(readFileSync(file, 'utf8')).toBe(
      `# Benchmarks\n\nIntro.\n\n${LOCOMO}\n\nLoCoMo figures.\n\n### Overall\n\nrows\n\n${LME}\n\nSecond figures.\n\n### Pooled\n\nrows\n\n## Ingest\n\nIngest figures.\n`,
    );
  });

  test('the LoCoMo section is replaced in place; a heading only inside a longer heading does not count', () => {
    const file = join(dir, 'other.md');
    writeFileSync(file, `# B\n\n#${LOCOMO}\n\nnot it\n\n${LOCOMO}\n\nold\n\n${LME}\n\nkept\n`);
    writeDocsSection(file, LOCOMO, `${LOCOMO}\n\nnew\n`);
    expect(readFileSync(file, 'utf8')).toBe(`# B\n\n#${LOCOMO}\n\nnot it\n\n${LOCOMO}\n\nnew\n\n${LME}\n\nkept\n`);
  });

  test('missing: appended at the end (no anchor), or the file created', () => {
    const file = join(dir, 'new.md');
    writeDocsSection(file, LME, `${LME}\n\nfigures\n`, { after: LOCOMO });
    expect(readFileSync(file, 'utf8')).toMatch(/^# Benchmarks\n\n.*\n\n## Recall quality on LongMemEval \(dev split\)\n\nfigures\n$/s);
  });
});

describe('gold copies', () => {
  test('a gold session with the same turns under another id is found; marks and order of sessions aside', () => {
    const copy: LmeQuestionData = {
      ...travelQuestion,
      question_id: 'q5',
      haystack_session_ids: ['pets_copy', 'pets_other'],
      haystack_dates: ['2023/04/01 (Sat) 10:00', '2023/04/02 (Sun) 10:00'],
      haystack_sessions: [
        petQuestion.haystack_sessions[1]!.map(({ role, content }) => ({ role, content })),
        // Same words, one role changed: not a copy.
        petQuestion.haystack_sessions[1]!.map(({ content }, index) => ({ role: index === 0 ? 'user' : 'assistant', content }) as const),
      ],
    };
    const { sessions } = collectSessions([petQuestion, travelQuestion, copy]);
    expect(goldCopies(sessions, ['pets_1', 'trip_a', 'pets_1', 'missing'])).toEqual([{ sessionId: 'pets_1', copies: ['pets_copy'] }]);
    expect(goldCopies(collectSessions([petQuestion]).sessions, ['pets_1'])).toEqual([]);
  });
});
