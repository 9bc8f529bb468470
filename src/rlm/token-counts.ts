import { renderTurn } from './content.js';
import type { PromptChanges } from './hashes.js';
import type { HistoryFile } from './history-file.js';
import type { OldIndex } from './old-index.js';
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

export function matchOldPrompts(outline: HistoryOutline, old: OldIndex | null, rowOf: ReadonlyMap<string, number>): OldPromptMatch {
  const oldRows = new Map((old?.promptIds ?? []).map((id, row) => [id, row]));
  const changes: PromptChanges = { added: [], modified: [], removed: [] };
  const uncounted: OutlinedPrompt[] = [];
  let matched = 0;
  for (const branch of outline.branches) {
    for (const prompt of branch.prompts) {
      const row = oldRows.get(prompt.id);
      const same = row !== undefined && old!.promptHashes[row] === prompt.hash;
      if (row === undefined) changes.added.push(prompt.id);
      else if (!same) changes.modified.push(prompt.id);
      if (row !== undefined) matched += 1;
      if (!Number.isNaN(prompt.tokens)) continue;
      if (same) prompt.tokens = old!.promptTokens[row]!;
      else uncounted.push(prompt);
    }
  }
  // Ids are unique on both sides: an old prompt is gone exactly when fewer were matched than the old index holds.
  if (old && matched < old.promptIds.length) for (const id of old.promptIds) if (!rowOf.has(id)) changes.removed.push(id);
  return { changes, uncounted };
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
