import type { Entry } from '../../model.js';
import { tokenizeFts, tokenizeFtsQueryTerm } from '../../text/fts-tokens.js';
import { COLUMN_WEIGHTS, type IndexDocument, buildTrigramDocument } from '../index-document.js';
import type { QueryPhrase } from '../postings/query-phrases.js';
import type { LexicalQuery } from '../types.js';
import { cleanText } from './clean.js';

/**
 * The word and substring index of the PostgreSQL engine, built so recall ranks as it does on SQLite: the same
 * tokens (tokenizeFts reproduces FTS5's porter + unicode61 tokenizer), the same columns and weights
 * (index-document.ts), and BM25 computed by the same formula (moon.bm25 in schema.ts), with the same document
 * lengths, document frequencies and averages as FTS5 uses.
 *
 * Each entry's columns go into one tsvector, told apart by weight label and by position range (a position holds
 * one label, so the columns never share one): A text (1–8,191), B tool name (8,192–8,207) and tool target
 * (8,209–10,239), C split identifiers (10,241–13,311), D the neighbours' text (13,313–16,383). The GIN index on it
 * answers matches; phrase frequencies per column are read back from the positions. PostgreSQL keeps at most 256
 * positions of a lexeme, and a column longer than its range has its later words at the range's last position,
 * so in a very long entry a word's later occurrences count once — the only place the engines' scores can differ.
 */

/** Labels of the columns a term is matched in: with the neighbours' context, and the entry's own. */
export const SEARCH_LABELS = 'ABCD';
export const OWN_LABELS = 'ABC';
/** Column weights in the order moon.phrase_freq reads them: text, tool, target, keywords, context. */
export const LABEL_WEIGHTS = [COLUMN_WEIGHTS.text, COLUMN_WEIGHTS.tool, COLUMN_WEIGHTS.target, COLUMN_WEIGHTS.keywords, COLUMN_WEIGHTS.context];

/**
 * ts_rank_cd with normalization 0 sums, over a phrase's occurrences, the weight of the label each stands under
 * — a column-weighted term frequency, computed in C. Its weights ({D, C, B, A}) may not exceed 1, so they are
 * the column weights divided by the largest, and the sum is multiplied back. The tool name shares label B with
 * the target in `tv`; its extra weight comes from `tool_tv`.
 */
const LABEL_SCALE = Math.max(COLUMN_WEIGHTS.text, COLUMN_WEIGHTS.target, COLUMN_WEIGHTS.keywords, COLUMN_WEIGHTS.context);
export const RANK_WEIGHTS = {
  scale: LABEL_SCALE,
  labels: [COLUMN_WEIGHTS.context, COLUMN_WEIGHTS.keywords, COLUMN_WEIGHTS.target, COLUMN_WEIGHTS.text].map((weight) => weight / LABEL_SCALE),
  toolExtra: COLUMN_WEIGHTS.tool - COLUMN_WEIGHTS.target,
};

const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_LEXEME = 256;
/** tsvector's limits: lexemes under 2 KB, the whole value under 1 MB (kept well below). */
const MAX_LEXEME_BYTES = 2_000;
const MAX_TSVECTOR_BYTES = 900_000;
/** Position ranges per column; schema.ts's moon.phrase_freq reads the tool/target split at TARGET_START. */
const RANGES = {
  text: [1, 8_191],
  tool: [8_192, 8_207],
  target: [8_209, 10_239],
  keywords: [10_241, 13_311],
  context: [13_313, MAX_POSITION],
} as const;

export interface WordIndexRow {
  tv: string;
  /** The tool name's lexemes alone (label B, the same positions as in tv). */
  toolTv: string;
  docLen: number;
}

/** The tsvector literal and BM25 document length of one entry's index document. */
export function buildWordIndex(document: IndexDocument, entry: Pick<Entry, 'role' | 'toolName'>): WordIndexRow {
  const lexemes = new Map<string, string[]>();
  const add = (tokens: string[], label: string, start: number, end: number): void => {
    tokens.forEach((token, index) => {
      const position = Math.min(start + index, end);
      let list = lexemes.get(token);
      if (!list) {
        list = [];
        lexemes.set(token, list);
      }
      const mark = `${position}${label}`;
      if (list.length < MAX_POSITIONS_PER_LEXEME && list[list.length - 1] !== mark) list.push(mark);
    });
  };
  const text = tokenizeFts(document.text);
  const tool = tokenizeFts(entry.toolName ?? '');
  const target = tokenizeFts(document.target ?? '');
  const keywords = tokenizeFts(document.keywords);
  const context = tokenizeFts(document.context);
  add(text, 'A', ...RANGES.text);
  add(tool, 'B', ...RANGES.tool);
  add(target, 'B', ...RANGES.target);
  add(keywords, 'C', ...RANGES.keywords);
  add(context, 'D', ...RANGES.context);
  const docLen = text.length + tokenizeFts(entry.role).length + tool.length + target.length + keywords.length + context.length;
  const toolLexemes = new Map<string, string[]>();
  tool.forEach((token, index) => {
    const mark = `${Math.min(RANGES.tool[0] + index, RANGES.tool[1])}B`;
    const list = toolLexemes.get(token) ?? [];
    if (list[list.length - 1] !== mark) list.push(mark);
    toolLexemes.set(token, list);
  });
  return { tv: renderTsvector(lexemes), toolTv: renderTsvector(toolLexemes), docLen };
}

/** `'lexeme':1A,2A 'other':3C` with positions sorted, as PostgreSQL reads it; bounded to tsvector's limits. */
function renderTsvector(lexemes: Map<string, string[]>): string {
  const parts: string[] = [];
  let bytes = 0;
  for (const [lexeme, marks] of lexemes) {
    const size = Buffer.byteLength(lexeme);
    if (size > MAX_LEXEME_BYTES) continue;
    bytes += size + 8 + marks.length * 2;
    if (bytes > MAX_TSVECTOR_BYTES) break;
    // Columns were added in range order, so the marks are already sorted by position.
    parts.push(`'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${marks.join(',')}`);
  }
  return parts.join(' ');
}

export interface TrigramRow {
  tri: string;
  triLen: number;
}

/** The substring body, case-folded as FTS5's trigram tokenizer folds it, and its trigram count (BM25 length). */
export function buildTrigramIndex(entry: Pick<Entry, 'text' | 'result' | 'toolTarget'> | string): TrigramRow {
  const body = typeof entry === 'string' ? entry : buildTrigramDocument(entry);
  let chars = 0;
  for (const _ of body) chars += 1;
  return { tri: foldTrigram(body), triLen: Math.max(0, chars - 2) };
}

export function foldTrigram(text: string): string {
  return text.toLowerCase();
}

/** One phrase of a query: its lexemes (space-joined for moon.bm25) and the labels it is matched in. */
export interface Phrase {
  lexemes: string[];
  labels: string;
  /** The last lexeme matches every word it starts. */
  prefix?: boolean;
}

export interface RenderedLexical {
  /** The tsquery text matching rows, or null when no positive term is left. */
  match: string | null;
  /** Phrases scored by BM25 (ranked and required ones), in FTS5's order. */
  scored: Phrase[];
  /** How many of `scored` are ranked (`any`) phrases; the rest are required. */
  ranked: number;
  /** Ranked phrases joined by AND. */
  every: boolean;
}

/**
 * A structured query as a tsquery and the phrases BM25 scores, mirroring how SQLite's renderFtsParts / joinFtsParts write it:
 * `any` terms (with or without the context column, OR or AND), then required `all` terms in the entry's own
 * columns, then `none` terms that must not be in its own columns. Every term is tokenized here, never parsed
 * by PostgreSQL, so no input is read as query syntax.
 */
export function renderLexicalQuery(query: Pick<LexicalQuery, 'any' | 'all' | 'none' | 'context' | 'every' | 'prefix'>): RenderedLexical {
  const anyLabels = query.context === false ? OWN_LABELS : SEARCH_LABELS;
  const any = toPhrases(query.any, anyLabels).map((phrase) => ({ ...phrase, prefix: query.prefix === true }));
  const all = toPhrases(query.all, OWN_LABELS);
  const none = toPhrases(query.none, OWN_LABELS);
  if (any.length === 0 && all.length === 0) return { match: null, scored: [], ranked: 0, every: false };
  const parts: string[] = [];
  if (any.length > 0) parts.push(`(${any.map(renderPhrase).join(query.every ? ' & ' : ' | ')})`);
  for (const phrase of all) parts.push(renderPhrase(phrase));
  let match = parts.join(' & ');
  if (none.length > 0) match = `${match} & !(${none.map(renderPhrase).join(' | ')})`;
  return { match, scored: [...any, ...all], ranked: any.length, every: query.every === true };
}

/** Terms joined by one operator, in the entry's own columns (--require / --exclude). */
export function renderTermsQuery(terms: readonly string[], operator: '&' | '|'): string | null {
  const phrases = toPhrases(terms, OWN_LABELS);
  return phrases.length === 0 ? null : `(${phrases.map(renderPhrase).join(` ${operator} `)})`;
}

/** Terms as phrases in the entry's own columns (what --require and hasLexicalMatch test). */
export function toOwnPhrases(terms: readonly string[]): Phrase[] {
  return toPhrases(terms, OWN_LABELS);
}

/**
 * One phrase of a postings plan (store/postings/query-phrases.ts) that postings cannot walk — several words, a
 * prefix — as tsvector matches it; null when it matches nothing here (a word longer than a lexeme may be).
 */
export function toTsvectorPhrase(phrase: Pick<QueryPhrase, 'text' | 'prefix' | 'columns'>): Phrase | null {
  const found = toPhrases([phrase.text], phrase.columns === 'own' ? OWN_LABELS : SEARCH_LABELS)[0];
  return found ? { ...found, prefix: phrase.prefix } : null;
}

/** Distinct terms as FTS5 sees them (the same term twice is one phrase; "Deploy" and "deploy" are two). */
function toPhrases(terms: readonly string[], labels: string): Phrase[] {
  const phrases: Phrase[] = [];
  for (const term of new Set(terms)) {
    if (!/[\p{L}\p{N}]/u.test(term)) continue;
    const lexemes = tokenizeFtsQueryTerm(term);
    // A word longer than a tsvector lexeme may be is not in the index (buildWordIndex leaves it out): it
    // matches nothing here, where FTS5 would find it — the one query the engines answer differently.
    if (lexemes.some((lexeme) => Buffer.byteLength(lexeme) > MAX_LEXEME_BYTES)) continue;
    if (lexemes.length > 0) phrases.push({ lexemes, labels });
  }
  return phrases;
}

/**
 * A phrase in tsquery syntax. A word of several lexemes must be consecutive within one column, so the phrase is
 * written once per label; the B label's two columns are kept apart by the gap between their ranges.
 */
export function renderPhrase(phrase: Phrase): string {
  const quoted = phrase.lexemes.map(quoteLexeme);
  const last = quoted.length - 1;
  const mark = (index: number, labels: string): string => `${quoted[index]}:${phrase.prefix && index === last ? '*' : ''}${labels}`;
  if (quoted.length === 1) return mark(0, phrase.labels);
  return `(${[...phrase.labels].map((label) => `(${quoted.map((_, index) => mark(index, label)).join(' <-> ')})`).join(' | ')})`;
}

/**
 * The phrase in any column: what its column-bound form (renderPhrase) implies. Asked beside it, it gives the
 * planner an estimate it can use — for a phrase bound to labels PostgreSQL guesses a quarter of the table and
 * scans all of it (146 ms at 70,000 entries, against 45 through the GIN index).
 */
export function renderAnyColumnPhrase(phrase: Phrase): string {
  const last = phrase.lexemes.length - 1;
  return phrase.lexemes.map((lexeme, index) => `${quoteLexeme(lexeme)}${phrase.prefix && index === last ? ':*' : ''}`).join(' <-> ');
}

/** A phrase as moon.bm25 reads it: lexemes joined by spaces, a prefix's last one marked with `*`. */
export function phraseText(phrase: Phrase): string {
  return `${phrase.lexemes.join(' ')}${phrase.prefix ? '*' : ''}`;
}

function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** A trigram query's needles: each term of three or more characters, folded, distinct as FTS5 quotes them. */
export function toTrigramNeedles(terms: readonly string[]): string[] {
  const needles: string[] = [];
  for (const term of new Set(terms)) {
    if ([...term].length < 3 || !/[\p{L}\p{N}]/u.test(term)) continue;
    needles.push(foldTrigram(cleanText(term)));
  }
  return needles;
}

export function likePattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
