import { readFile } from 'node:fs/promises';
import { MoonError, toIoError } from '../errors.js';
import { parsePuffinHistory, type ParsedHistory } from '../sources/puffin-history.js';

/**
 * How the generator and the query read a history file: one function, so the whole-file reader here can be
 * replaced by the streaming one (src/sources/puffin-read.ts, for files over 50 MB) in one place.
 */
export type ReadHistory = (path: string) => Promise<ParsedHistory>;

/** The whole file at once: read, JSON.parse, parsed view. Errors name the file. */
export async function readHistoryWhole(path: string): Promise<ParsedHistory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw toIoError(path, error, 'read');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MoonError('bad_input', `${path} is not JSON: ${(error as Error).message}`);
  }
  try {
    return parsePuffinHistory(value);
  } catch (error) {
    throw new MoonError('bad_input', `${path}: ${(error as Error).message}`);
  }
}

/** The reader used unless a caller passes another. */
export const readHistoryFile: ReadHistory = readHistoryWhole;
