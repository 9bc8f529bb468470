import type { Entry } from '../../model.js';
import { tokenizeFts } from '../../text/fts-tokens.js';
import { CONTEXT_CHARS, sliceHead } from '../../text/limits.js';
import { COLUMN_WEIGHTS } from '../column-weights.js';
import type { EntryDocument } from '../index-document.js';
import { localNumbering } from './term-numbering.js';

/**
 * An entry's own postings: for each term its own columns hold (text, tool, target, keywords), the term's
 * column-weighted frequency, with the length of those columns and the role — what BM25 needs of an entry, as
 * FTS5's bm25 computes it over the same columns and weights. The neighbours' context is added by the writer,
 * from each neighbour's `head` (the part of its text an entry's context column quotes).
 *
 * Terms are numbers of the process's numbering (term-numbering.ts). Frequencies are in tenths of a weight, as
 * integers: every column weight is a multiple of 0.1 (COLUMN_WEIGHTS), so the sums are exact.
 */
export interface OwnPostings {
  numbering: string;
  /** Tokens in the entry's own columns and its role (BM25's document length, without the context). */
  length: number;
  terms: Uint32Array;
  tenths: Uint32Array;
  /** The tokens of the head of the entry's text, as a neighbour's context column holds it. */
  head: Uint32Array;
}

/** Column weights in tenths. */
export const WEIGHT_TENTHS = {
  text: toTenths(COLUMN_WEIGHTS.text),
  tool: toTenths(COLUMN_WEIGHTS.tool),
  target: toTenths(COLUMN_WEIGHTS.target),
  keywords: toTenths(COLUMN_WEIGHTS.keywords),
  context: toTenths(COLUMN_WEIGHTS.context),
} as const;

function toTenths(weight: number): number {
  const tenths = Math.round(weight * 10);
  if (tenths <= 0 || Math.abs(tenths - weight * 10) > 1e-9) throw new Error(`column weight ${weight} is not a positive multiple of 0.1`);
  return tenths;
}

export function buildOwnPostings(document: EntryDocument, entry: Pick<Entry, 'role' | 'toolName' | 'text'>): OwnPostings {
  const numbers: number[] = [];
  const tenths: number[] = [];
  const slots = new Map<number, number>();
  let length = tokenizeFts(entry.role).length;
  const add = (text: string | null, weight: number): void => {
    if (text === null || text === '') return;
    const tokens = tokenizeFts(text);
    length += tokens.length;
    for (const token of tokens) {
      const number = localNumbering.number(token);
      const slot = slots.get(number);
      if (slot === undefined) {
        slots.set(number, numbers.length);
        numbers.push(number);
        tenths.push(weight);
      } else tenths[slot] = tenths[slot]! + weight;
    }
  };
  add(document.text, WEIGHT_TENTHS.text);
  add(entry.toolName, WEIGHT_TENTHS.tool);
  add(document.target, WEIGHT_TENTHS.target);
  add(document.keywords, WEIGHT_TENTHS.keywords);
  return { numbering: localNumbering.id, length, terms: Uint32Array.from(numbers), tenths: Uint32Array.from(tenths), head: buildHead(entry.text) };
}

/** The tokens a neighbour's context column holds of this text (index-document.ts buildContext), numbered. */
export function buildHead(text: string): Uint32Array {
  return Uint32Array.from(tokenizeFts(sliceHead(text, CONTEXT_CHARS)), (token) => localNumbering.number(token));
}
