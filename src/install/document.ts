import { MoonError } from '../errors.js';

/** A key path into a config document: object keys and array indexes. */
export type KeyPath = readonly (string | number)[];

/**
 * One config file being edited in place: the text changes only where an entry is added or removed, so comments,
 * key order, line endings and the rest of the layout stay as the user wrote them. `data` is the parsed value of
 * the current text.
 */
export interface ConfigDocument {
  readonly format: 'json' | 'json5' | 'toml';
  readonly text: string;
  readonly data: Record<string, unknown>;
  /** The value at `path`, or undefined. */
  get(path: KeyPath): unknown;
  /** Set the value at `path`, creating the objects (tables) on the way. */
  set(path: KeyPath, value: unknown): void;
  /** Remove the key or array item at `path` (nothing when it is absent). */
  remove(path: KeyPath): void;
  /** Add `item` at the end of the array at `path` (JSON only). */
  append(path: KeyPath, item: unknown): void;
}

export function getAt(data: unknown, path: KeyPath): unknown {
  let node: unknown = data;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      if (typeof key !== 'number') return undefined;
      node = node[key];
    } else {
      if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
  }
  return node;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => deepEqual(item, b[index]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

/** `mcpServers.moon`, `hooks.SessionStart[0]`: a key path as people read it. */
export function describePath(path: KeyPath): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${/^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key)}`)).join('');
}

/** A file that cannot be edited safely: named with the line and column of the problem; nothing is written. */
export function malformedFile(file: string, line: number, column: number, problem: string): MoonError {
  return new MoonError('bad_input', `${file}:${line}:${column}: ${problem}`, {
    hint: 'fix the file (or move it aside) and run the command again; nothing was written',
  });
}

/** A file that parses but holds something other than what the agent documents where moon would write. */
export function unexpectedShape(file: string, path: KeyPath, expected: string): MoonError {
  return new MoonError('bad_input', `${file}: ${describePath(path) || 'the top level'} should be ${expected}`, {
    hint: 'fix the file (or move it aside) and run the command again; nothing was written',
  });
}

/** 1-based line and column of a character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    const char = text[index];
    if (char === '\n' || (char === '\r' && text[index + 1] !== '\n')) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The file's line ending: the first one it uses (LF for a file without one). */
export function detectEol(text: string): '\n' | '\r\n' {
  const index = text.indexOf('\n');
  return index > 0 && text[index - 1] === '\r' ? '\r\n' : '\n';
}

/** The file's indentation unit: a tab, or the smallest run of leading spaces (2 when nothing is indented). */
export function detectIndent(text: string): { tabs: boolean; size: number } {
  let smallest = Infinity;
  for (const line of text.split(/\r?\n/).slice(0, 500)) {
    const match = /^([ \t]+)\S/.exec(line);
    if (!match) continue;
    if (match[1]!.startsWith('\t')) return { tabs: true, size: 1 };
    smallest = Math.min(smallest, match[1]!.length);
  }
  return { tabs: false, size: Number.isFinite(smallest) ? smallest : 2 };
}
