import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { MoonError, errnoOf } from '../errors.js';
import { type ParsedHistory, isPuffinHistory, parsePuffinHistory } from './puffin-history.js';
import { createPuffinStreamReader } from './puffin-stream.js';
import { DOCUMENT_STREAM_BYTES, parseJsonDocument } from './source.js';
import { describeJsonError } from '../text/json-error.js';

/**
 * A Puffin `.puffin/history.json` from disk into the parsed view (seed 004 §1): parsed whole below
 * DOCUMENT_STREAM_BYTES (50 MB), streamed from the file at or above it, so a large history is never held as one
 * string or one raw tree. Malformed prompts are skipped and listed in `skipped`; a file that is not JSON, or not a
 * Puffin history, is a MoonError('bad_input') naming the file; an unreadable one a MoonError('unreadable').
 */
export async function readPuffinHistoryFile(path: string): Promise<ParsedHistory> {
  try {
    const { size } = await stat(path);
    if (size < DOCUMENT_STREAM_BYTES) {
      const value = parseJsonDocument(await readFile(path));
      if (!isPuffinHistory(value)) throw createNotPuffinError(path);
      return parsePuffinHistory(value);
    }
    const reader = createPuffinStreamReader();
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) reader.write(chunk as Buffer);
    const parsed = reader.end();
    if (!parsed) throw createNotPuffinError(path);
    return parsed;
  } catch (error) {
    if (error instanceof MoonError) throw error;
    if (error instanceof SyntaxError) {
      throw new MoonError('bad_input', `${path}: not valid JSON (${describeJsonError(error)})`, { cause: error });
    }
    throw new MoonError('unreadable', `${path}: cannot read (${errnoOf(error) ?? (error as Error).message})`, { cause: error });
  }
}

/** The error for a file that is JSON but no Puffin history, naming it. */
export function createNotPuffinError(path: string): MoonError {
  return new MoonError('bad_input', `${path}: not a Puffin history (expected an object with "branches" holding "prompts" arrays)`);
}
