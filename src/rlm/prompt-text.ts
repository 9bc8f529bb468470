import { MoonError } from '../errors.js';
import { type ParsedPrompt, readPuffinPrompt } from '../sources/puffin-history.js';
import { createChangedError, type HistoryFile } from './history-file.js';
import type { HistoryOutline } from './outline.js';

/**
 * The generator's second pass: prompts read back from their bytes in the file, by id, and parsed one by one —
 * only those of the segment being summarised, so only its text is held. Prompts that lie close together in the
 * file (a segment's usually do) are read with one read. A prompt that does not parse back as itself means the
 * file changed under the run: that is an error, never a wrong summary.
 *
 * Where each prompt lies is kept in a PromptLocator: a map from id to a row and a few typed arrays — a few
 * megabytes for 100k prompts, where the outline it is made from holds tens, so the outline can be let go before
 * the summaries are made.
 */

/** What is read back of a prompt: its text and what its turn shows (not its place in its tree). */
export type PromptText = Pick<ParsedPrompt, 'id' | 'branchId' | 'position' | 'title' | 'content' | 'timestamp' | 'response'>;

export interface PromptLocator {
  rowOf: ReadonlyMap<string, number>;
  starts: Float64Array;
  ends: Float64Array;
  positions: Float64Array;
  branchOf: Uint32Array;
  branchIds: readonly string[];
}

/** Read-back is done in runs with at most this many bytes between two prompts. */
const GAP_BYTES = 16 * 1024;

export function createPromptLocator(outline: HistoryOutline): PromptLocator {
  const count = outline.branches.reduce((sum, branch) => sum + branch.prompts.length, 0);
  const locator = {
    rowOf: new Map<string, number>(),
    starts: new Float64Array(count),
    ends: new Float64Array(count),
    positions: new Float64Array(count),
    branchOf: new Uint32Array(count),
    branchIds: outline.branches.map((branch) => branch.id),
  };
  let row = 0;
  outline.branches.forEach((branch, branchIndex) => {
    for (const prompt of branch.prompts) {
      locator.rowOf.set(prompt.id, row);
      locator.starts[row] = prompt.start;
      locator.ends[row] = prompt.end;
      locator.positions[row] = prompt.position;
      locator.branchOf[row] = branchIndex;
      row += 1;
    }
  });
  return locator;
}

/** The prompts of these ids, read back, in the order given. */
export function readPromptsBack(file: HistoryFile, locator: PromptLocator, ids: readonly string[]): PromptText[] {
  const rows = ids.map((id) => {
    const row = locator.rowOf.get(id);
    if (row === undefined) throw new MoonError('internal', `prompt ${id} is not in the history's outline`);
    return row;
  });
  const { starts, ends } = locator;
  const order = rows.map((_, index) => index).sort((a, b) => starts[rows[a]!]! - starts[rows[b]!]!);
  const out = new Array<PromptText>(rows.length);
  let first = 0;
  while (first < order.length) {
    // One read for a run of prompts with little between them.
    let last = first;
    let end = ends[rows[order[first]!]!]!;
    while (last + 1 < order.length && starts[rows[order[last + 1]!]!]! - end <= GAP_BYTES) {
      last += 1;
      end = Math.max(end, ends[rows[order[last]!]!]!);
    }
    const start = starts[rows[order[first]!]!]!;
    const bytes = Buffer.allocUnsafe(end - start);
    if (file.readAt(bytes, start, bytes.length) !== bytes.length) throw createChangedError(file.path);
    for (let at = first; at <= last; at += 1) {
      const index = order[at]!;
      const row = rows[index]!;
      out[index] = parsePromptBack(file, locator, row, ids[index]!, bytes.toString('utf8', starts[row]! - start, ends[row]! - start));
    }
    first = last + 1;
  }
  return out;
}

function parsePromptBack(file: HistoryFile, locator: PromptLocator, row: number, id: string, text: string): PromptText {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw createChangedError(file.path);
  }
  const prompt = readPuffinPrompt(value, locator.branchIds[locator.branchOf[row]!]!, locator.positions[row]!);
  if (typeof prompt === 'string' || prompt.id !== id) throw createChangedError(file.path);
  return prompt;
}
