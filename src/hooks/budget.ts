import type { TokenCounter } from '../text/tokens.js';

/**
 * Fitting what a hook prints to its token budget. The context is built from pieces (a session's heading, its
 * outcome, one decision, one MEMORY.md line), each with a priority. Pieces are taken in priority order while
 * their counts fit, then the whole text is rendered in document order and counted once more — counts of lines
 * apart can differ from the count of the lines together — and the least important piece left out until the
 * whole fits. What is printed is always within the budget, counted by the same tokenizer.
 */
export interface Piece {
  /** Lower first. Pieces of rank 0 are required: without room for them nothing is printed. */
  rank: number;
  /** Position in the rendered text. */
  order: number;
  text: string;
  /** The `order` of a piece this one only makes sense under (a session's heading for its decisions). */
  parent?: number;
}

export interface Fitted {
  text: string;
  tokens: number;
  pieces: Piece[];
}

/**
 * The best text within `budget` tokens, or null when even the required pieces do not fit. `render` turns the
 * chosen pieces (in document order) into the final text — the frame and section headings included.
 */
export async function fitToBudget(
  pieces: readonly Piece[],
  render: (chosen: Piece[]) => string,
  budget: number,
  counter: TokenCounter,
): Promise<Fitted | null> {
  if (budget <= 0) return null;
  // A piece is never considered before its parent: its rank is at least the parent's.
  const byOrder = new Map(pieces.map((piece) => [piece.order, piece]));
  const rankOf = (piece: Piece, depth = 0): number => {
    const parent = piece.parent === undefined || depth > 16 ? undefined : byOrder.get(piece.parent);
    return parent ? Math.max(piece.rank, rankOf(parent, depth + 1)) : piece.rank;
  };
  const ranks = new Map(pieces.map((piece) => [piece, rankOf(piece)]));
  const byRank = [...pieces].sort((a, b) => ranks.get(a)! - ranks.get(b)! || a.order - b.order);
  // One batch: the frame alone, then every piece with its line break.
  const [base, ...costs] = await counter.count([render([]), ...byRank.map((piece) => `${piece.text}\n`)]);
  const chosen: Piece[] = [];
  let estimate = base!;
  const taken = new Set<number>();
  for (const [index, piece] of byRank.entries()) {
    if (piece.parent !== undefined && !taken.has(piece.parent)) continue;
    const cost = costs[index]!;
    if (estimate + cost > budget) {
      if (piece.rank === 0) return null;
      continue;
    }
    chosen.push(piece);
    taken.add(piece.order);
    estimate += cost;
  }
  // The exact check: drop the least important piece until the rendered whole fits.
  for (;;) {
    const inOrder = [...chosen].sort((a, b) => a.order - b.order);
    const text = render(inOrder);
    const [tokens] = await counter.count([text]);
    if (tokens! <= budget) return { text, tokens: tokens!, pieces: inOrder };
    const last = chosen.pop();
    if (last === undefined || last.rank === 0) return null;
    // Pieces under the one left out go with it.
    for (let index = chosen.length - 1; index >= 0; index -= 1) if (chosen[index]!.parent === last.order) chosen.splice(index, 1);
  }
}
