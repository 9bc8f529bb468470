/**
 * A JSON document cut into values as its bytes stream past, without parsing it whole: the containers a reader
 * asks to enter are walked, and every other value is handed over as its own JSON text, which the reader parses
 * alone (with JSON.parse, so every value means exactly what it means in a whole parse), with where its bytes lie
 * in the document. Memory is what the reader keeps plus the value being cut, never the document. Structural
 * characters are ASCII, which no byte of a multi-byte UTF-8 character is, so the document is cut on bytes and
 * each value decoded on its own.
 */

/** Where a value sits: object keys and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

export type ContainerKind = 'object' | 'array';

export interface JsonSplitHandlers {
  /** Walk into this container (its members are reported one by one) rather than take it as one value. */
  descend(path: JsonPath, kind: ContainerKind): boolean;
  /** A container the splitter walks into starts here (a later duplicate key starts it again). */
  enter?(path: JsonPath, kind: ContainerKind): void;
  /**
   * A value not walked into, as its JSON text, and its bytes' place in the document: `start` (inclusive) to `end`
   * (exclusive), counted from the document's first byte (a byte order mark included).
   */
  value(path: JsonPath, text: string, start: number, end: number): void;
}

/** Both throw a SyntaxError (as JSON.parse does) naming the byte where the document stops being JSON. */
export interface JsonSplitter {
  write(chunk: Uint8Array): void;
  /** The document is complete; throws when it is not. */
  end(): void;
}


type FrameState = 'first' | 'key' | 'colon' | 'value' | 'next';

interface Frame {
  kind: ContainerKind;
  path: JsonPath;
  state: FrameState;
  key: string;
  index: number;
}

/** Inside a string: whether the next byte is escaped (a chunk ended on the backslash before it). */
interface StringState {
  escaped: boolean;
}

type Capture =
  | ({ kind: 'container'; depth: number; inString: boolean } & StringState)
  | ({ kind: 'string'; started: boolean } & StringState)
  | { kind: 'scalar' };

const BOM = [0xef, 0xbb, 0xbf];
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Bytes a string is scanned byte by byte before the scan jumps from quote to quote (keys and ids are short). */
const SHORT_STRING = 32;

/**
 * The index after the closing quote of a string whose body goes on at `from`, or -1 when the chunk ends first
 * (`state.escaped` then says whether the chunk ended inside an escape). Long bodies are crossed with indexOf, a
 * quote counting as the end when an even number of backslashes precede it: every run of backslashes in a JSON
 * string starts where an escape may start, so its length alone says whether the quote after it is escaped.
 */
function findStringEnd(chunk: Buffer, from: number, state: StringState): number {
  const length = chunk.length;
  let index = from;
  if (state.escaped) {
    if (index >= length) return -1;
    state.escaped = false;
    index += 1;
  }
  const near = Math.min(length, index + SHORT_STRING);
  while (index < near) {
    const byte = chunk[index]!;
    if (byte === QUOTE) return index + 1;
    index += byte === BACKSLASH ? 2 : 1;
  }
  if (index > length) {
    // The chunk ends on a backslash: the first byte of the next one is escaped.
    state.escaped = true;
    return -1;
  }
  // `index` is where an escape may start: backslash runs are counted from here.
  const start = index;
  for (;;) {
    const quote = chunk.indexOf(QUOTE, index);
    const stop = quote === -1 ? length : quote;
    let run = 0;
    while (stop - run - 1 >= start && chunk[stop - run - 1] === BACKSLASH) run += 1;
    if (quote === -1) {
      state.escaped = run % 2 === 1;
      return -1;
    }
    if (run % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}

/** What a byte is to a container being passed over outside its strings: 0 nothing, else a quote or a bracket. */
const NOTHING = 0;
const QUOTE_BYTE = 1;
const OPENS = 2;
const CLOSES = 3;
const CONTAINER_BYTES = new Uint8Array(256);
CONTAINER_BYTES[QUOTE] = QUOTE_BYTE;
CONTAINER_BYTES[OPEN_BRACE] = OPENS;
CONTAINER_BYTES[OPEN_BRACKET] = OPENS;
CONTAINER_BYTES[CLOSE_BRACE] = CLOSES;
CONTAINER_BYTES[CLOSE_BRACKET] = CLOSES;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Bytes that end a number, `true`, `false` or `null`. */
function endsScalar(byte: number): boolean {
  return isWhitespace(byte) || byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || byte === COLON || byte === QUOTE || byte === OPEN_BRACE || byte === OPEN_BRACKET;
}

export function createJsonSplitter(handlers: JsonSplitHandlers): JsonSplitter {
  const stack: Frame[] = [];
  /** The root value was read whole: only whitespace may follow. */
  let done = false;
  let offset = 0;
  /** Bytes of a leading byte order mark read so far (3: done looking). */
  let bomSeen = 0;
  let capture: Capture | null = null;
  /** What the value being captured is: a member's value, or a key (of the top frame). */
  let capturing: 'value' | 'key' = 'value';
  let capturePath: JsonPath = [];
  /** Where the value being captured starts in the document. */
  let captureStart = 0;
  const parts: Buffer[] = [];

  // A SyntaxError, as JSON.parse throws for the same document.
  const fail = (message: string, at: number): never => {
    throw new SyntaxError(`${message} at byte ${at}`);
  };

  /** The path of the value the top frame (or the root) expects next. */
  const nextPath = (): JsonPath => {
    const frame = stack[stack.length - 1];
    if (!frame) return [];
    return [...frame.path, frame.kind === 'object' ? frame.key : frame.index];
  };

  /** A value (captured, or a container walked) is complete: its parent expects a comma or its end. */
  const completeValue = (): void => {
    const frame = stack[stack.length - 1];
    if (!frame) {
      done = true;
      return;
    }
    frame.state = 'next';
    if (frame.kind === 'array') frame.index += 1;
  };

  const finishCapture = (text: string): void => {
    capture = null;
    if (capturing === 'key') {
      const frame = stack[stack.length - 1]!;
      let key: unknown;
      try {
        key = JSON.parse(text);
      } catch {
        fail('malformed object key', offset);
      }
      frame.key = key as string;
      frame.state = 'colon';
      return;
    }
    handlers.value(capturePath, text, captureStart, offset);
    completeValue();
  };

  /** Start a value at `byte` (not whitespace): walk into it, or start capturing it (from this very byte). */
  const startValue = (byte: number, at: number): void => {
    const path = nextPath();
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      const kind: ContainerKind = byte === OPEN_BRACE ? 'object' : 'array';
      if (handlers.descend(path, kind)) {
        stack.push({ kind, path, state: 'first', key: '', index: 0 });
        handlers.enter?.(path, kind);
        return;
      }
      capture = { kind: 'container', depth: 0, inString: false, escaped: false };
    } else if (byte === QUOTE) {
      capture = { kind: 'string', escaped: false, started: false };
    } else if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39) || byte === 0x74 || byte === 0x66 || byte === 0x6e) {
      capture = { kind: 'scalar' };
    } else {
      fail('unexpected character', at);
    }
    capturing = 'value';
    capturePath = path;
    captureStart = at;
  };

  /** Feed `chunk[from..]` to the capture; returns the index after the captured value, or -1 when it goes on. */
  const continueCapture = (chunk: Buffer, from: number): number => {
    const current = capture!;
    const length = chunk.length;
    let index = from;
    if (current.kind === 'scalar') {
      while (index < length && !endsScalar(chunk[index]!)) index += 1;
      return index < length ? index : -1;
    }
    if (current.kind === 'string') {
      if (!current.started) {
        current.started = true;
        index += 1;
      }
      return findStringEnd(chunk, index, current);
    }
    while (index < length) {
      if (current.inString) {
        const end = findStringEnd(chunk, index, current);
        if (end === -1) return -1;
        current.inString = false;
        index = end;
        continue;
      }
      // Indentation, colons, commas, numbers: passed over a byte at a time with one look-up each.
      let kind = CONTAINER_BYTES[chunk[index]!]!;
      while (kind === NOTHING && ++index < length) kind = CONTAINER_BYTES[chunk[index]!]!;
      if (index === length) break;
      if (kind === QUOTE_BYTE) {
        current.inString = true;
      } else if (kind === OPENS) {
        current.depth += 1;
      } else {
        current.depth -= 1;
        if (current.depth === 0) return index + 1;
      }
      index += 1;
    }
    return -1;
  };

  const takeCaptured = (chunk: Buffer, start: number, end: number): string => {
    const tail = chunk.subarray(start, end);
    if (parts.length === 0) return tail.toString('utf8');
    parts.push(tail);
    const text = Buffer.concat(parts).toString('utf8');
    parts.length = 0;
    return text;
  };

  const write = (bytes: Uint8Array): void => {
    const chunk = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let index = 0;
    // A UTF-8 byte order mark is not JSON, but editors write one now and then: skipped (its bytes counted in
    // offsets), even when cut. Until it is settled, every byte read was one of its bytes.
    while (bomSeen < BOM.length && index < chunk.length) {
      if (chunk[index] !== BOM[bomSeen]) {
        if (bomSeen > 0) fail('unexpected character', bomSeen);
        bomSeen = BOM.length;
        break;
      }
      bomSeen += 1;
      index += 1;
      offset += 1;
    }
    while (index < chunk.length) {
      if (capture) {
        const start = index;
        const end = continueCapture(chunk, index);
        if (end === -1) {
          // The value goes on in the next chunk: keep a copy of its start (the caller may reuse the chunk).
          parts.push(Buffer.from(chunk.subarray(start)));
          offset += chunk.length - index;
          return;
        }
        offset += end - index;
        index = end;
        finishCapture(takeCaptured(chunk, start, end));
        continue;
      }
      const byte = chunk[index]!;
      if (isWhitespace(byte)) {
        index += 1;
        offset += 1;
        continue;
      }
      const at = offset;
      if (done) fail('unexpected data after the document', at);
      const frame = stack[stack.length - 1];
      if (!frame) {
        startValue(byte, at);
        if (capture) continue;
      } else if (frame.kind === 'object') {
        if ((frame.state === 'first' || frame.state === 'key') && byte === QUOTE) {
          capture = { kind: 'string', escaped: false, started: false };
          capturing = 'key';
          continue;
        } else if ((frame.state === 'first' || frame.state === 'next') && byte === CLOSE_BRACE) {
          stack.pop();
          completeValue();
        } else if (frame.state === 'colon' && byte === COLON) {
          frame.state = 'value';
        } else if (frame.state === 'value') {
          startValue(byte, at);
          if (capture) continue;
        } else if (frame.state === 'next' && byte === COMMA) {
          frame.state = 'key';
        } else {
          fail('unexpected character in an object', at);
        }
      } else if ((frame.state === 'first' || frame.state === 'next') && byte === CLOSE_BRACKET) {
        stack.pop();
        completeValue();
      } else if (frame.state === 'next' && byte === COMMA) {
        frame.state = 'value';
      } else if (frame.state === 'first' || frame.state === 'value') {
        startValue(byte, at);
        if (capture) continue;
      } else {
        fail('unexpected character in an array', at);
      }
      index += 1;
      offset += 1;
    }
  };

  const end = (): void => {
    if (capture?.kind === 'scalar' && stack.length === 0) {
      const text = Buffer.concat(parts).toString('utf8');
      parts.length = 0;
      finishCapture(text);
    }
    if (capture || stack.length > 0) fail('the document ends early', offset);
    if (!done) fail('no JSON value', offset);
  };

  return { write, end };
}
