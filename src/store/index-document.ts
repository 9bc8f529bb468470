import { type Entry, type ResultPatch, mergeByKey } from '../model.js';
import { expandIdentifiers } from '../text/identifiers.js';
import { CONTEXT_CHARS, IDENTIFIER_SCAN_CHARS, selectIndexedText, sliceHead } from '../text/limits.js';
import { buildTrigramBody } from '../text/trigram.js';
import { type OwnPostings, buildOwnPostings } from './postings/entry-postings.js';

/**
 * What the index holds for one entry, built from the stored entry alone (plus its neighbours' text) so any store
 * indexes the same words. Each column is bounded whatever the entry's size (src/text/limits.ts): the word index
 * holds the head and tail of a huge text, identifiers come from a prefix, the trigram body is capped. The
 * entries table keeps the whole text; snippets are cut from it.
 */
export interface IndexDocument {
  /** Word-indexed text: the text, then the tool result, each cut by selectIndexedText. */
  text: string;
  /** The tool target (command, path), cut like the text. */
  target: string | null;
  /** Split identifiers and path parts of the target, text and result. */
  keywords: string;
  /** The first characters of up to two entries before and after. */
  context: string;
}

export { COLUMN_WEIGHTS } from './column-weights.js';

/** Entries before and after an entry whose text goes into its `context` column. */
export const CONTEXT_RADIUS = 2;

/** Neighbours in session order: the nearest first on each side (before[0] is the entry just before). */
export interface Neighbours {
  before: readonly string[];
  after: readonly string[];
}

/** The columns that depend on the entry alone (everything but the neighbours' context). */
export type EntryDocument = Omit<IndexDocument, 'context'>;

/**
 * An entry's own columns and its trigram body, built ahead of the commit where the entry was parsed (an ingest
 * worker), so the writer only inserts them. Built from the entries of one commit merged by key with their
 * results applied — the same merge the store does — so an engine uses one only for a row that commit inserted.
 */
export interface PreparedDocument extends EntryDocument {
  trigram: string;
  /** The own columns' postings (store/postings/), tokenized where the entry was parsed rather than by the writer. */
  postings: OwnPostings;
}

type Indexed = Pick<Entry, 'text' | 'result' | 'toolTarget'>;

export function buildIndexDocument(entry: Indexed | EntryDocument, neighbours: Neighbours): IndexDocument {
  const own = 'keywords' in entry ? entry : buildEntryDocument(entry);
  return { text: own.text, target: own.target, keywords: own.keywords, context: buildContext(neighbours) };
}

export function buildEntryDocument(entry: Indexed): EntryDocument {
  const text = entry.result ? `${selectIndexedText(entry.text)}\n${selectIndexedText(entry.result)}` : selectIndexedText(entry.text);
  const scanned = [entry.toolTarget ?? '', entry.text, entry.result ?? ''].map((part) => sliceHead(part, IDENTIFIER_SCAN_CHARS));
  return {
    text,
    target: entry.toolTarget === null ? null : selectIndexedText(entry.toolTarget),
    keywords: expandIdentifiers(scanned.join(' ')),
  };
}

/** Every entry of a commit (merged by key, results applied) with its prepared document, keyed by entry key. */
export function prepareDocuments(entries: readonly Entry[], results: readonly ResultPatch[]): Map<string, PreparedDocument> {
  return prepareMergedDocuments(mergeByKey(entries, results));
}

/** The same for a commit's entries already merged (model.ts mergeByKey). */
export function prepareMergedDocuments(merged: ReadonlyMap<string, Entry>): Map<string, PreparedDocument> {
  const documents = new Map<string, PreparedDocument>();
  for (const [key, entry] of merged) {
    const own = buildEntryDocument(entry);
    documents.set(key, { ...own, trigram: buildTrigramDocument(entry), postings: buildOwnPostings(own, entry) });
  }
  return documents;
}

/** Distinct tokens for the substring (trigram) index; built only for entries whose own text changed. */
export function buildTrigramDocument(entry: Indexed): string {
  return buildTrigramBody(entry.text, entry.toolTarget, entry.result);
}

/** Nearest neighbours first, alternating before and after, as the index has always ordered them. */
function buildContext(neighbours: Neighbours): string {
  const parts: string[] = [];
  const radius = Math.max(neighbours.before.length, neighbours.after.length);
  for (let offset = 0; offset < radius; offset += 1) {
    for (const text of [neighbours.before[offset], neighbours.after[offset]]) {
      if (text !== undefined) parts.push(sliceHead(text, CONTEXT_CHARS));
    }
  }
  return parts.join('\n');
}
