import type { Entry } from '../model.js';
import type { StoreEngine } from '../store/ports.js';
import type { Embedder } from './embedder.js';

export interface EmbedProgress {
  embedded: number;
  total: number;
  model: string;
}

/** What an entry's vector stands for: who said it, which tool, what was said and what came back. */
export function renderEmbeddingText(entry: Entry, maxChars = 2000): string {
  const head = entry.role === 'tool' && entry.toolName ? `${entry.toolName}: ` : '';
  const body = entry.result ? `${entry.text}\n${entry.result}` : entry.text;
  const flat = `${head}${body}`.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? flat.slice(0, maxChars) : flat;
}

/**
 * Embed every entry that has no vector yet, in batches, committing each batch. Embedding may lag the lexical
 * index (an interrupted run resumes here); a changed model fingerprint drops the old vectors first.
 */
export async function embedPending(
  store: Pick<StoreEngine, 'vectors' | 'stats'>,
  embedder: Embedder,
  options: { batchSize: number; onProgress?: (progress: EmbedProgress) => void },
): Promise<EmbedProgress> {
  await store.vectors.setModel({ id: embedder.id, dims: embedder.dims });
  const total = (await store.stats.stats()).entries;
  let embedded = await store.vectors.count();
  for (;;) {
    const pending = await store.vectors.listPending(options.batchSize);
    if (pending.length === 0) break;
    const vectors = await embedder.embed(pending.map((item) => renderEmbeddingText(item.entry)));
    await store.vectors.put(pending.map((item, index) => ({ rowid: item.rowid, vector: vectors[index]! })));
    embedded += pending.length;
    options.onProgress?.({ embedded, total, model: embedder.id });
  }
  return { embedded, total, model: embedder.id };
}
