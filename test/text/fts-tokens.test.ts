import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { FTS_MAX_TERM_BYTES, tokenizeFts, tokenizeFtsQueryTerm } from '../../src/text/fts-tokens.js';

/**
 * Parity with SQLite: every text goes through a real FTS5 table with moon's tokenizer, and the terms FTS5 stored
 * (fts5vocab 'instance', in offset order) must equal tokenizeFts(text) exactly — zero mismatches.
 */

const REPO = join(import.meta.dirname, '..', '..');
const TOKENIZER = 'porter unicode61 remove_diacritics 2';
const RUNS = { numRuns: Number(process.env.FTS_RUNS ?? 1000) };

const db = new Database(':memory:');
afterAll(() => db.close());

type VocabRow = { term: string; doc: number; col: string; offset: number };

/** The terms FTS5 stores for each text, in order. The table is made afresh: deleted rows would slow fts5vocab. */
function sqliteTokens(texts: readonly string[]): string[][] {
  db.exec('DROP TABLE IF EXISTS v; DROP TABLE IF EXISTS t');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${TOKENIZER}')`);
  db.exec(`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`);
  const insert = db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)');
  db.transaction(() => texts.forEach((text, index) => insert.run(index + 1, text)))();
  const out = texts.map((): string[] => []);
  const rows = db.prepare('SELECT term, doc, col, offset FROM v ORDER BY doc, col, offset').all() as VocabRow[];
  for (const row of rows) {
    const tokens = out[row.doc - 1];
    if (!tokens || row.offset !== tokens.length) throw new Error(`unexpected vocab row ${JSON.stringify(row)}`);
    tokens.push(row.term);
  }
  return out;
}

/** Readable descriptions of the first texts whose tokens differ between FTS5 and tokenizeFts. */
function mismatches(texts: readonly string[], label: (index: number) => string = (index) => `text #${index}`, limit = 10): string[] {
  const expected = sqliteTokens(texts);
  const found: string[] = [];
  texts.forEach((text, index) => {
    if (found.length >= limit) return;
    const actual = tokenizeFts(text);
    const wanted = expected[index] ?? [];
    const at = firstDifference(wanted, actual);
    if (at < 0) return;
    const show = JSON.stringify;
    found.push(
      `${label(index)}: token ${at} of ${wanted.length}: sqlite ${show(wanted[at])} vs js ${show(actual[at])}` +
        ` (js has ${actual.length}); around: ${show(wanted.slice(Math.max(0, at - 3), at + 3))};` +
        ` text starts ${show(text.slice(0, 120))}`,
    );
  });
  return found;
}

function firstDifference(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) if (a[index] !== b[index]) return index;
  return -1;
}

/** Every string value in every JSONL record under test/fixtures and examples, with where it came from. */
function fixtureStrings(): { text: string; where: string }[] {
  const out: { text: string; where: string }[] = [];
  const collect = (value: unknown, where: string): void => {
    if (typeof value === 'string') out.push({ text: value, where });
    else if (Array.isArray(value)) for (const item of value) collect(item, where);
    else if (value && typeof value === 'object') for (const item of Object.values(value)) collect(item, where);
  };
  for (const root of ['test/fixtures', 'examples']) {
    const files = readdirSync(join(REPO, root), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl'));
    for (const file of files) {
      const path = join(REPO, root, file);
      readFileSync(path, 'utf8').split('\n').forEach((line, index) => {
        let record: unknown;
        try {
          record = JSON.parse(line);
        } catch {
          return; // blank or deliberately malformed lines
        }
        collect(record, `${relative(REPO, path)}:${index + 1}`);
      });
    }
  }
  return out;
}

describe('tokenizeFts matches SQLite FTS5 exactly', () => {
  test('every code point, at the start of a token and inside one', () => {
    // "a<c>a <c>b": shows whether <c> continues a token, starts one, and how it folds. Lone surrogates included.
    const texts: string[] = [];
    for (let from = 0; from <= 0x10ffff; from += 4096) {
      const parts: string[] = [];
      for (let point = from; point < Math.min(from + 4096, 0x110000); point += 1) {
        const char = point >= 0xd800 && point <= 0xdfff ? String.fromCharCode(point) : String.fromCodePoint(point);
        parts.push(`a${char}a ${char}b`);
      }
      texts.push(parts.join(' '));
    }
    expect(mismatches(texts, (index) => `code points from U+${(index * 4096).toString(16)}`)).toEqual([]);
  });

  test('every string of the fixture and example transcripts', () => {
    const strings = fixtureStrings();
    expect(strings.length).toBeGreaterThan(5000);
    expect(mismatches(strings.map((item) => item.text), (index) => strings[index]?.where ?? '?')).toEqual([]);
  });

  test('an English word list: dictionary or fixture words, and generated words for every stemmer rule', () => {
    const words = wordList();
    expect(words.length).toBeGreaterThan(100_000);
    const texts: string[] = [];
    for (let index = 0; index < words.length; index += 500) texts.push(words.slice(index, index + 500).join(' '));
    expect(mismatches(texts, (index) => `words ${index * 500}…`)).toEqual([]);
  });

  test('the edges, spelled out', () => {
    const cases: [string, string[]][] = [
      ['Caresses ponies ties caress cats', ['caress', 'poni', 'ti', 'caress', 'cat']],
      ['ated eed sses ies', ['at', 'e', 'sse', 'ie']], // a suffix needs something before it
      ['hopping filing conflated generalizations', ['hop', 'file', 'conflat', 'gener']],
      ['Ünïcödé café ǖ İstanbul ß ﬁsh ＡＢ', ['unicod', 'cafe', 'u', 'istanbul', 'ß', 'ﬁsh', 'ａｂ']],
      ['e\u0301te\u0301 \u0301x e\u0341x', ['et', 'x', 'e', 'x']], // some combining marks join, others split
      ['漢字かな交じり文 русские слова', ['漢字かな交じり文', 'русские', 'слова']],
      ['🤔think 😀smile', ['🤔think', 'smile']], // SQLite's Unicode predates U+1F914, so it is a "letter"
      ['٣٤ ১২ a\uD800b', ['٣٤', '১২', 'a', 'b']],
      ['ößing a丸ing', ['oß', 'a\uFFFD']], // non-ASCII is stemmed by bytes, even into half a character
      [`${'a'.repeat(61)}ing ${'a'.repeat(62)}ing`, ['a'.repeat(61), `${'a'.repeat(62)}ing`]], // 64 bytes, not 65
    ];
    for (const [text, tokens] of cases) expect([text, tokenizeFts(text)]).toEqual([text, tokens]);
    expect(mismatches(cases.map(([text]) => text))).toEqual([]);
    const long = ['x'.repeat(40_000), '丸'.repeat(20_000), `a${'🤔'.repeat(9000)}`, `${'é'.repeat(17_000)}s`];
    expect(tokenizeFts(long[0] ?? '')).toEqual(['x'.repeat(FTS_MAX_TERM_BYTES)]);
    expect(mismatches(long)).toEqual([]);
  });

  test('arbitrary unicode strings, lone surrogates included', () => {
    const unit = fc.oneof(
      { weight: 9, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
      { weight: 1, arbitrary: fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', ' ') },
    );
    fc.assert(fc.property(fc.string({ unit, maxLength: 80 }), (text) => {
      expect(mismatches([text])).toEqual([]);
    }), RUNS);
  });

  test('strings from a mixed alphabet of words, suffixes, accents, CJK, emoji and combining marks', () => {
    fc.assert(fc.property(mixedText, (text) => {
      expect(mismatches([text])).toEqual([]);
    }), RUNS);
  });

  test('a document matches a query term exactly when its tokens hold the term’s tokens as a phrase', () => {
    const strings = fixtureStrings()
      .map((item) => item.text)
      .filter((text) => text.length > 20 && text.length < 400)
      .slice(0, 400);
    sqliteTokens(strings);
    const tokenized = strings.map((text) => tokenizeFts(text));
    const search = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid');
    const query = fc.record({
      pick: fc.integer({ min: 0, max: strings.length - 1 }),
      from: fc.nat(),
      size: fc.integer({ min: 1, max: 3 }),
      suffix: fc.constantFrom('', 's', 'ing', 'ed'),
    });
    fc.assert(
      fc.property(query, ({ pick, from, size, suffix }) => {
        // A run of words from one document, re-inflected, so the query's surface form differs from the document's.
        const words = (strings[pick] ?? '').split(/\s+/).filter((word) => word !== '');
        const start = from % Math.max(1, words.length);
        const term = `${words.slice(start, start + size).join(' ')}${suffix}`.toUpperCase();
        const phrase = tokenizeFtsQueryTerm(term);
        if (phrase.length === 0) return; // FTS5 rejects or ignores an empty phrase; nothing to compare
        const expected = tokenized.flatMap((tokens, index) => (containsPhrase(tokens, phrase) ? [index + 1] : []));
        const rows = search.all(`"${term.replaceAll('"', '""')}"`) as { rowid: number }[];
        expect([term, rows.map((row) => row.rowid)]).toEqual([term, expected]);
      }),
      { numRuns: 300 },
    );
    // Query terms are cut to FTS_MAX_TERM_BYTES like stored ones.
    sqliteTokens([`${'q'.repeat(40_000)} tail`]);
    expect(tokenizeFtsQueryTerm(`${'q'.repeat(32_768)}z`)).toEqual(tokenizeFts('q'.repeat(40_000)));
    expect(search.all(`"${'q'.repeat(32_768)}z"`)).toHaveLength(1);
  });
});

function containsPhrase(tokens: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= tokens.length; start += 1) {
    if (phrase.every((token, offset) => tokens[start + offset] === token)) return true;
  }
  return false;
}

const SUFFIXES = [
  '', 's', 'es', 'ies', 'sses', 'ss', 'ed', 'eed', 'ing', 'y', 'e', 'l', 'll', 'at', 'bl', 'iz', 'ational', 'tional',
  'enci', 'anci', 'izer', 'logi', 'bli', 'abli', 'alli', 'entli', 'eli', 'ousli', 'ization', 'ation', 'ator',
  'alism', 'iveness', 'fulness', 'ousness', 'aliti', 'iviti', 'biliti', 'icate', 'ative', 'alize', 'iciti', 'ical',
  'ful', 'ness', 'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'sion', 'tion',
  'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'yed', 'ying',
];
const STEMS = [
  '', 'a', 'b', 'y', 'e', 'ee', 'by', 'oy', 'ab', 'ba', 'bab', 'abab', 'tr', 'trab', 'toy', 'syzyg', 'hop', 'fil',
  'tann', 'fizz', 'fall', 'conflat', 'generaliz', 'wax', 'bow', 'play', 'ca', 'sw', 'feed', 'agre', 'plaster',
  'motor', 'sing', 'relat', 'condition', 'rat', 'ratt', 'cav', 'adopt', 'oscill', 'fail', 'é', 'ñ', '丸', 'a丸',
];

/** A dictionary when the system has one, otherwise every ASCII word of the fixtures and docs; plus generated words. */
function wordList(): string[] {
  const words = new Set<string>();
  const dictionary = '/usr/share/dict/words';
  if (existsSync(dictionary)) for (const word of readFileSync(dictionary, 'utf8').split('\n')) if (word) words.add(word);
  const docs = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  const sources = [...fixtureStrings().map((item) => item.text), ...docs.map((path) => readFileSync(join(REPO, path), 'utf8'))];
  for (const text of sources) for (const match of text.matchAll(/[A-Za-z]+/g)) words.add(match[0]);
  for (const stem of STEMS) for (const first of SUFFIXES) for (const second of SUFFIXES) words.add(stem + first + second);
  return [...words].flatMap((word) => [word, word.toUpperCase()]);
}

const ALPHABET = [
  ...'abcdeilnostuyzABCDEY0123456789', ' ', ' ', '\n', '\t', '.', '-', '_', '/', "'", '"', '(', ')', '{', '}', ':', '=',
  'é', 'É', 'ü', 'ñ', 'ø', 'ß', 'ﬁ', 'İ', 'ı', 'Σ', 'ς', 'ǅ', 'Ⅻ', '²', '½', '٣', '漢', '字', 'か', 'ー', '한', 'ア',
  '😀', '🤔', '👍🏽', '\u200d', '\ufe0f', '\u0301', '\u0308', '\u0327', '\u0341', '\u20dd', '\u00ad', '\u00a0',
  '\uD800', '\uFFFD', '\uFFFE', '\u{E0100}', '\u{10FFFD}', '\u{1D400}',
  'ing', 'ed', 'eed', 'ies', 'sses', 'ational', 'ization', 'ement', 'ness', 'ful', 'ble', 'll', 'at', 'iz', 'y', 'e',
];
const mixedText = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 60 }).map((parts) => parts.join(''));

// FTS_PRINT_TABLES=1 npx vitest run test/text/fts-tokens.test.ts — measure unicode61's tables from SQLite and print
// them in the form src/text/fts-tokens.ts embeds (TOKEN_RUNS and FOLDS_TEXT), for when SQLite's tables change.
test.runIf(process.env.FTS_PRINT_TABLES)('print unicode61 tables measured from SQLite', () => {
  const probe = new Database(':memory:');
  probe.exec(`CREATE VIRTUAL TABLE p USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')`);
  probe.exec(`CREATE VIRTUAL TABLE pv USING fts5vocab(p, 'instance')`);
  const insert = probe.prepare('INSERT INTO p(rowid, x) VALUES (?, ?)');
  const points: number[] = [];
  for (let point = 0; point <= 0x10ffff; point += 1) if (point < 0xd800 || point > 0xdfff) points.push(point);
  probe.transaction(() => points.forEach((point) => insert.run(point + 1, `${String.fromCodePoint(point)}b`)))();
  const tokenChar = new Set<number>();
  const folds = new Map<number, number>();
  for (const row of probe.prepare('SELECT term, doc FROM pv').all() as { term: string; doc: number }[]) {
    if (row.term === 'b') continue; // a separator (or a diacritic, which starts no token)
    const point = row.doc - 1;
    const folded = row.term.codePointAt(0) ?? point;
    tokenChar.add(point);
    if (folded !== point) folds.set(point, folded);
  }
  probe.close();
  const runs: string[] = [];
  let last = 0;
  for (let point = 1; point < 0x110000; point += 1) {
    if (tokenChar.has(point) !== tokenChar.has(point - 1)) {
      runs.push((point - last).toString(36));
      last = point;
    }
  }
  const entries: string[] = [];
  last = 0;
  for (const [point, folded] of [...folds].sort((a, b) => a[0] - b[0])) {
    if (!folds.has(point)) continue;
    let best = { count: 1, step: 1, constant: false };
    for (const step of [1, 2]) {
      for (const constant of [false, true]) {
        let count = 1;
        for (;;) {
          const next = folds.get(point + step * count);
          if (next === undefined || (constant ? next !== folded : next - (point + step * count) !== folded - point)) break;
          count += 1;
        }
        if (count > best.count) best = { count, step, constant };
      }
    }
    for (let k = 0; k < best.count; k += 1) folds.delete(point + best.step * k);
    const value = best.constant ? `=${folded.toString(36)}` : `${folded < point ? '-' : '+'}${Math.abs(folded - point).toString(36)}`;
    const count = best.count > 1 ? `${best.step === 2 ? '/' : ':'}${best.count.toString(36)}` : '';
    entries.push(`${(point - last).toString(36)}${count}${value}`);
    last = point;
  }
  console.log(`TOKEN_RUNS:\n${wrap(runs)}\n\nFOLDS_TEXT:\n${wrap(entries)}`);
});

function wrap(words: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > 112) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line].map((text) => `  ${text}`).join('\n');
}
