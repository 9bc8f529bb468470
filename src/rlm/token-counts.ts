import { renderTurn } from './content.js';
import type { PromptChanges } from './hashes.js';
import type { HistoryFile } from './history-file.js';
import { HASH_CHARS, type OldIndex, type OldPromptRows } from './old-index.js';
import type { HistoryOutline, OutlinedPrompt } from './outline.js';
import { readPromptsBack, type PromptLocator } from './prompt-text.js';

/**
 * An incremental run's history against the old index, prompt by prompt: the prompts added, modified and removed
 * (seed 004 §5), and the token counts the first pass left open (NaN) taken from the old index where a prompt's
 * hash is the one it holds (a title or timestamp edit alone keeps the hash: seed 004 hashes id, prompt and
 * response). The prompts whose count is still open are returned, to be counted (countPromptsBack).
 */
export interface OldPromptMatch {
  changes: PromptChanges;
  uncounted: OutlinedPrompt[];
}

export function matchOldPrompts(outline: HistoryOutline, old: OldIndex | null): OldPromptMatch {
  const changes: PromptChanges = { added: [], modified: [], removed: [] };
  const uncounted: OutlinedPrompt[] = [];
  const rows = old?.prompts ?? null;
  const matched = new Uint8Array(rows?.count ?? 0);
  const findRow = createRowFinder(rows);
  let expected = 0;
  for (const branch of outline.branches) {
    for (const prompt of branch.prompts) {
      const row = findRow(prompt.id, expected);
      if (row !== undefined) {
        matched[row] = 1;
        expected = row + 1;
      }
      const same = row !== undefined && rows!.hashes.startsWith(prompt.hash, row * HASH_CHARS);
      if (row === undefined) changes.added.push(prompt.id);
      else if (!same) changes.modified.push(prompt.id);
      if (!Number.isNaN(prompt.tokens)) continue;
      if (same) prompt.tokens = rows!.tokens[row]!;
      else uncounted.push(prompt);
    }
  }
  for (let row = 0; row < matched.length; row += 1) if (matched[row] === 0) changes.removed.push(readId(rows!, row));
  return { changes, uncounted };
}

/**
 * The old row of a prompt id: the row after the last one found, when it holds that id — prompts keep their order
 * from one run to the next, so nearly every look-up is one comparison — else a map of every old id, made the
 * first time it is needed (after an added or moved prompt).
 */
function createRowFinder(rows: OldPromptRows | null): (id: string, expected: number) => number | undefined {
  let byId: Map<string, number> | null = null;
  return (id, expected) => {
    if (!rows) return undefined;
    if (expected < rows.count && rows.idStarts[expected + 1]! - rows.idStarts[expected]! === id.length && rows.ids.startsWith(id, rows.idStarts[expected])) return expected;
    byId ??= new Map(Array.from({ length: rows.count }, (_, row) => [readId(rows, row), row]));
    return byId.get(id);
  };
}

function readId(rows: OldPromptRows, row: number): string {
  return rows.ids.slice(rows.idStarts[row], rows.idStarts[row + 1]);
}

const BATCH = 256;

/** Counts the tokens of these prompts, read back from the file a batch at a time. */
export async function countPromptsBack(file: HistoryFile, locator: PromptLocator, prompts: readonly OutlinedPrompt[], countTokens: (texts: string[]) => Promise<number[]>): Promise<void> {
  for (let start = 0; start < prompts.length; start += BATCH) {
    const batch = prompts.slice(start, start + BATCH);
    const counts = await countTokens(readPromptsBack(file, locator, batch.map((prompt) => prompt.id)).map(renderTurn));
    batch.forEach((prompt, index) => (prompt.tokens = counts[index] ?? 0));
  }
}
