import { randomUUID } from 'node:crypto';

/**
 * Terms numbered where they are tokenized, so the index writer handles numbers rather than strings: an ingest
 * worker numbers the terms of the documents it prepares and sends the new ones with each result; the writer
 * maps a numbering's numbers to the store's own term ids once per term (sqlite/postings.ts). Looking a string up
 * for each of millions of postings cost the writer more than all the rest of the postings' work.
 *
 * Each process (a worker, the main thread) has one numbering, `localNumbering`. The writer's process knows the
 * terms of its own numbering and of every numbering whose terms it received (`receiveTerms`, in the order sent).
 */
export interface TermDelta {
  numbering: string;
  /** The number of the first term. */
  from: number;
  terms: string[];
}

export class TermNumbering {
  readonly id = randomUUID();
  readonly terms: string[] = [];
  private readonly numbers = new Map<string, number>();
  private sent = 0;

  number(term: string): number {
    let found = this.numbers.get(term);
    if (found === undefined) {
      found = this.terms.length;
      this.numbers.set(term, found);
      this.terms.push(term);
    }
    return found;
  }

  /** The terms numbered since the last call (none: null), to send with what uses them. */
  takeNew(): TermDelta | null {
    if (this.sent === this.terms.length) return null;
    const delta = { numbering: this.id, from: this.sent, terms: this.terms.slice(this.sent) };
    this.sent = this.terms.length;
    return delta;
  }
}

export const localNumbering = new TermNumbering();

const known = new Map<string, string[]>([[localNumbering.id, localNumbering.terms]]);

/** Terms another process numbered, in the order it sent them. */
export function receiveTerms(delta: TermDelta): void {
  let terms = known.get(delta.numbering);
  if (!terms) {
    terms = [];
    known.set(delta.numbering, terms);
  }
  if (terms.length !== delta.from) throw new Error(`terms of numbering ${delta.numbering} arrived out of order (${delta.from}, expected ${terms.length})`);
  for (const term of delta.terms) terms.push(term);
}

/** The term a numbering gave `number`. */
export function termOf(numbering: string, number: number): string {
  const term = known.get(numbering)?.[number];
  if (term === undefined) throw new Error(`unknown term ${number} of numbering ${numbering}`);
  return term;
}
