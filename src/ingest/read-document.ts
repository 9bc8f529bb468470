import { MoonError } from '../errors.js';
import { DETECT_WINDOW, detectDocumentSource, detectSource, listDocumentSources } from '../sources/index.js';
import { parseHead } from '../sources/jsonl.js';
import { DOCUMENT_STREAM_BYTES, type DocumentSource, type ParsedDocument, parseJsonDocument } from '../sources/source.js';

export interface DocumentRead {
  source: DocumentSource;
  parsed: ParsedDocument;
}

/**
 * The sessions of a whole-file JSON document (sources/source.ts `DocumentSource`), or null when the bytes are
 * not one: JSON lines a record source recognises, or JSON no document source recognises. Decided by content: a
 * file below DOCUMENT_STREAM_BYTES is parsed whole once and shown to every document source; a larger one is
 * handed to each in turn to stream, so it is never held as one string or one raw tree. Malformed JSON in a
 * file named as a document source names its files (`.puffin/history.json`) is an error naming the file and the
 * byte; anywhere else it is only "not a document".
 */
export function readDocumentFile(path: string, buffer: Buffer): DocumentRead | null {
  if (!startsLikeDocument(buffer)) return null;
  if (detectSource(parseHead(buffer, DETECT_WINDOW)) !== null) return null;
  try {
    if (buffer.length < DOCUMENT_STREAM_BYTES) {
      const value = parseJsonDocument(buffer);
      const source = detectDocumentSource(value);
      return source ? { source, parsed: source.parseDocument(source.readDocument(value), { path }) } : null;
    }
    for (const source of listDocumentSources()) {
      const document = source.streamDocument(buffer);
      if (document !== null) return { source, parsed: source.parseDocument(document, { path }) };
    }
    return null;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    if (!listDocumentSources().some((source) => source.fileName.test(path))) return null;
    throw new MoonError('bad_input', `${path}: not valid JSON (${error.message}); nothing indexed from it`);
  }
}

/** A JSON document starts with an object or an array (after whitespace and a byte order mark). */
function startsLikeDocument(buffer: Buffer): boolean {
  let index = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  while (index < buffer.length && (buffer[index] === 0x20 || buffer[index] === 0x0a || buffer[index] === 0x0d || buffer[index] === 0x09)) index += 1;
  return buffer[index] === 0x7b || buffer[index] === 0x5b;
}
