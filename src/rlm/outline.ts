import { MoonError } from '../errors.js';
import { extractMarkers, type MarkerConfig } from '../markers/extract.js';
import { type LinkablePrompt, type ParsedPrompt, type PuffinHistoryOf, readPuffinPrompt } from '../sources/puffin-history.js';
import { createNotPuffinError } from '../sources/puffin-read.js';
import { createPuffinStreamReader } from '../sources/puffin-stream.js';
import { renderTurn } from './content.js';
import { hashPrompt } from './hashes.js';
import type { HistoryFile } from './history-file.js';
import type { IndexMarker } from './types.js';

/**
 * The generator's first pass over a history: the file is streamed once (the source's splitter hands each prompt
 * over alone), and of each prompt only what the index is planned from is kept — its place in its conversation
 * tree, its times, its hash, its token count, its markers and where its JSON lies in the file. Never its text:
 * a 100k-prompt history outlines in a few tens of megabytes, and the text of a segment is read back (prompt-text.ts)
 * only when the segment is summarised.
 *
 * Token counts are taken here, a chunk's prompts at a time — except on an incremental run, which takes most of
 * them from the old index once it is read, and counts the rest afterwards (token-counts.ts).
 */
export type OutlinedMarker = Pick<IndexMarker, 'type' | 'content' | 'sourceField' | 'importance' | 'lineNumber' | 'context'>;

export interface OutlinedPrompt extends LinkablePrompt {
  /** hashPrompt's SHA-256 of the id, the text and the response's text. */
  hash: string;
  /** Tokens of the prompt's turn (renderTurn). */
  tokens: number;
  /** Its `@/` markers, the prompt's before the response's; null when it has none (nearly every prompt). */
  markers: OutlinedMarker[] | null;
  /** Where the prompt's JSON object lies in the file: bytes `start` to `end` (exclusive). */
  start: number;
  end: number;
}

export type HistoryOutline = PuffinHistoryOf<OutlinedPrompt>;

export interface OutlineOptions {
  /** Token counts (cl100k_base), in order. */
  countTokens(texts: string[]): Promise<number[]>;
  /**
   * Count no token now: every prompt's count is left NaN, to be taken from the old index or counted afterwards
   * (token-counts.ts) — for an incremental run, whose old index is read while this pass runs.
   */
  deferCounts?: boolean;
  markerConfig: MarkerConfig;
  /** Bytes read of the file's size. */
  onProgress?: (done: number, total: number) => void;
}

export interface OutlineResult {
  outline: HistoryOutline;
  /** Prompts whose tokens were counted (none when counts were left for later). */
  counted: number;
}

/**
 * Bytes read at a time; the turns of the prompts a chunk completes are counted before the next is read. Small
 * chunks keep those turns short-lived: texts held across many young-generation collections would be promoted to
 * the old generation and stay there, as garbage, until the next full collection (measured: 1 MB chunks raised the
 * peak by some 50 MB on a 116 MB history).
 */
const CHUNK_BYTES = 64 * 1024;
/** Chunks between two turns given to the event loop (signals, progress) when no count was awaited. */
const CHUNKS_PER_TURN = 64;

/** The outline of no history at all. */
export function createEmptyOutline(): HistoryOutline {
  return { branches: [], totalPrompts: 0, dateRange: null, updatedAt: null, activeBranch: null, skipped: [] };
}

export async function outlineHistory(file: HistoryFile, options: OutlineOptions): Promise<OutlineResult> {
  const waiting: OutlinedPrompt[] = [];
  const turns: string[] = [];
  let counted = 0;
  const outlinePrompt = (value: unknown, branchId: string, position: number, bytes: { start: number; end: number }): OutlinedPrompt | string => {
    const prompt = readPuffinPrompt(value, branchId, position);
    if (typeof prompt === 'string') return prompt;
    // A deferred count is NaN from the start (one field representation for every record).
    const outlined = createOutlinedPrompt(prompt, bytes, options.markerConfig, options.deferCounts ? Number.NaN : 0);
    if (!options.deferCounts) {
      waiting.push(outlined);
      turns.push(renderTurn(prompt));
    }
    return outlined;
  };
  // A chunk's turns are sent to be counted while the next chunk is read (a counter on a worker counts them on
  // another core); at most two batches are out at a time.
  let counting: Promise<void> | null = null;
  const countWaiting = async (): Promise<void> => {
    const previous = counting;
    if (turns.length > 0) {
      const batch = waiting.splice(0);
      const next = options.countTokens(turns.splice(0)).then((counts) => {
        batch.forEach((prompt, index) => (prompt.tokens = counts[index] ?? 0));
        counted += counts.length;
      });
      // Awaited below or at the end; never an unhandled rejection meanwhile.
      next.catch(() => undefined);
      counting = next;
    } else {
      counting = null;
    }
    if (previous) await previous;
  };

  const reader = createPuffinStreamReader(outlinePrompt);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  let chunks = 0;
  try {
    for (;;) {
      const read = file.readAt(buffer, position, CHUNK_BYTES);
      if (read === 0) break;
      // The reader copies what it keeps of a chunk: the buffer is reused.
      reader.write(buffer.subarray(0, read));
      position += read;
      options.onProgress?.(position, file.size);
      if (turns.length > 0 || counting) await countWaiting();
      else if (++chunks % CHUNKS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const outline = reader.end();
    if (!outline) throw createNotPuffinError(file.path);
    await countWaiting();
    await counting;
    return { outline, counted };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // A file rewritten in place while it is read stops being JSON where the two versions meet: say that instead.
    file.checkUnchanged();
    throw new MoonError('bad_input', `${file.path}: not valid JSON (${error.message})`, { cause: error });
  }
}

function createOutlinedPrompt(prompt: ParsedPrompt, bytes: { start: number; end: number }, markerConfig: MarkerConfig, tokens: number): OutlinedPrompt {
  return {
    id: prompt.id,
    branchId: prompt.branchId,
    parentId: prompt.parentId,
    parentMissing: prompt.parentMissing,
    children: prompt.children,
    depth: prompt.depth,
    rootId: prompt.rootId,
    timestamp: prompt.timestamp,
    position: prompt.position,
    response: prompt.response === null ? null : { timestamp: prompt.response.timestamp },
    hash: hashPrompt(prompt),
    tokens,
    markers: findPromptMarkers(prompt, markerConfig),
    start: bytes.start,
    end: bytes.end,
  };
}

function findPromptMarkers(prompt: ParsedPrompt, config: MarkerConfig): OutlinedMarker[] | null {
  const found = collectMarkers(null, prompt.content, 'prompt', config);
  return prompt.response ? collectMarkers(found, prompt.response.content, 'response', config) : found;
}

/** `found` with the markers of one field added (a list made only when there is one: nearly no prompt has any). */
function collectMarkers(found: OutlinedMarker[] | null, text: string, sourceField: 'prompt' | 'response', config: MarkerConfig): OutlinedMarker[] | null {
  const markers = extractMarkers(text, config);
  if (markers.length === 0) return found;
  const list = found ?? [];
  for (const marker of markers) {
    list.push({ type: marker.type, content: marker.content, sourceField, importance: marker.importance, lineNumber: marker.lineNumber, context: marker.context });
  }
  return list;
}
