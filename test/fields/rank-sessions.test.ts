import { describe, expect, test } from 'vitest';
import { toFieldDoc, toFieldQueryTerms } from '../../src/fields/field-doc.js';
import { FIELD_WEIGHTS, scoreSessions, selectFieldTerms } from '../../src/fields/rank-sessions.js';
import { SESSION_FIELDS, type SessionField, type SessionFieldDoc, type SessionFieldPosting } from '../../src/store/types.js';

const EMPTY: Record<SessionField, string> = { title: '', summary: '', digest: '', files: '', errors: '' };

/** What an engine would hand back for these docs: stats, document frequencies and every posting. */
function asEngine(docs: SessionFieldDoc[]) {
  const totalLengths = Object.fromEntries(SESSION_FIELDS.map((field) => [field, docs.reduce((sum, doc) => sum + doc.lengths[field], 0)])) as Record<SessionField, number>;
  const postings: SessionFieldPosting[] = docs.flatMap((doc) => doc.terms.map((item) => ({ ...item, sessionId: doc.sessionId, length: doc.lengths[item.field] })));
  const sessions = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc.terms.map((item) => item.term))) sessions.set(term, (sessions.get(term) ?? 0) + 1);
  return { stats: { sessions: docs.length, totalLengths }, postings, sessions };
}

function rank(docs: SessionFieldDoc[], query: string, fields: readonly SessionField[] = SESSION_FIELDS) {
  const engine = asEngine(docs);
  return scoreSessions({ terms: toFieldQueryTerms(query.split(' ')), ...engine, fields });
}

describe('scoreSessions (BM25F)', () => {
  const filler = (id: string) => toFieldDoc(id, { ...EMPTY, digest: 'ran the tests and fixed the lint' });

  test('a word in the title counts more than the same word in a field as long', () => {
    const docs = [
      toFieldDoc('in-title', { ...EMPTY, title: 'dashboard query', summary: 'tuned things' }),
      toFieldDoc('in-summary', { ...EMPTY, title: 'tuned things', summary: 'dashboard query' }),
      filler('a'),
      filler('b'),
    ];
    const ranked = rank(docs, 'dashboard');
    expect(ranked.map((item) => item.sessionId)).toEqual(['in-title', 'in-summary']);
    expect(FIELD_WEIGHTS.title).toBeGreaterThan(FIELD_WEIGHTS.summary);
  });

  test('a rare word outweighs a common one; each session reports the fields and words that matched', () => {
    const docs = [
      toFieldDoc('rare', { ...EMPTY, errors: 'ENOSPC no space left on device' }),
      toFieldDoc('common', { ...EMPTY, digest: 'ran the tests' }),
      filler('a'),
      filler('b'),
    ];
    const ranked = rank(docs, 'tests ENOSPC');
    expect(ranked[0]).toMatchObject({ sessionId: 'rare', fields: [{ field: 'errors', terms: ['enospc'] }] });
    expect(ranked.find((item) => item.sessionId === 'common')!.score).toBeLessThan(ranked[0]!.score);
  });

  test('coverage: the share of the query\'s weight the fields hold, a word no field holds counting in full', () => {
    const docs = [toFieldDoc('both', { ...EMPTY, summary: 'parquet exporter' }), toFieldDoc('one', { ...EMPTY, summary: 'exporter' }), filler('a')];
    const [both, one] = rank(docs, 'parquet exporter');
    expect(both!.coverage).toBeCloseTo(1, 9);
    expect(one!.coverage).toBeGreaterThan(0);
    expect(one!.coverage).toBeLessThan(0.5);
    const withAbsent = scoreSessions({ terms: ['parquet', 'export'], allTerms: ['parquet', 'export', 'zebra'], ...asEngine(docs), fields: SESSION_FIELDS });
    expect(withAbsent[0]!.coverage).toBeLessThan(0.8);
  });

  test('fields not in use are ignored; no use, no ranking', () => {
    const docs = [toFieldDoc('x', { ...EMPTY, digest: 'parquet' }), filler('a')];
    expect(rank(docs, 'parquet', ['title', 'summary'])).toEqual([]);
    expect(rank(docs, 'parquet', ['digest'])[0]?.sessionId).toBe('x');
  });

  test('ties are broken by session id, and the same input always gives the same scores', () => {
    const docs = [toFieldDoc('b', { ...EMPTY, files: 'src/app.ts' }), toFieldDoc('a', { ...EMPTY, files: 'src/app.ts' }), filler('c')];
    const first = rank(docs, 'app');
    expect(first.map((item) => item.sessionId)).toEqual(['a', 'b']);
    expect(rank([...docs].reverse(), 'app')).toEqual(first);
  });
});

describe('selectFieldTerms', () => {
  const counts = new Map([
    ['rare', { postings: 3, sessions: 2 }],
    ['mid', { postings: 40, sessions: 30 }],
    ['huge', { postings: 900, sessions: 800 }],
    ['absent', { postings: 0, sessions: 0 }],
  ]);

  test('rarest first while the postings fit; the query order is kept; absent terms are dropped', () => {
    expect(selectFieldTerms(['huge', 'absent', 'mid', 'rare'], counts, 1000)).toEqual(['huge', 'mid', 'rare']);
    expect(selectFieldTerms(['huge', 'mid', 'rare'], counts, 100)).toEqual(['mid', 'rare']);
    expect(selectFieldTerms(['huge', 'mid', 'rare'], counts, 2)).toEqual([]);
  });
});

describe('toFieldDoc', () => {
  test('counts each field\'s terms as the word index tokenizes them, and the field lengths', () => {
    const doc = toFieldDoc('s', { ...EMPTY, title: 'Running runs', files: 'src/run.ts' });
    expect(doc.lengths).toEqual({ title: 2, summary: 0, digest: 0, files: 3, errors: 0 });
    expect(doc.terms).toEqual([
      { field: 'title', term: 'run', tf: 2 },
      { field: 'files', term: 'src', tf: 1 },
      { field: 'files', term: 'run', tf: 1 },
      { field: 'files', term: 'ts', tf: 1 },
    ]);
  });
});
