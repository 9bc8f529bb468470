import type { ParsedHistory } from '../sources/puffin-history.js';
import { readPuffinHistoryFile } from '../sources/puffin-read.js';

/**
 * How the query reads a history file: one function, replaceable by a caller (tests pass their own). The default
 * is the source's reader: parsed whole below 50 MB, streamed above; errors name the file. (The generator reads a
 * history in two passes of its own, never holding its text whole: outline.ts, prompt-text.ts.)
 */
export type ReadHistory = (path: string) => Promise<ParsedHistory>;

/** The reader used unless a caller passes another. */
export const readHistoryFile: ReadHistory = readPuffinHistoryFile;
